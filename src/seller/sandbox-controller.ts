import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { canonicalJson } from '../webhooks/canonical-json.js';
import { assertTransition } from '../server/tools/lifecycles.js';
import { ControllerError, type TestControllerOptions } from '../server/tools/test-controller.js';
import type { CatalogProduct } from './catalog.js';
import { channelsOf, simulatedCounts } from '../kit/controller.js';
import type { SellerDb } from './seller-db.js';

const FORMAT_AGENT = 'https://creative.adcontextprotocol.org';
const DELIVERY_METRICS = ['impressions', 'clicks', 'conversions'] as const;

function text(value: unknown, fallback: string, max = 256): string {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : fallback;
}

function fixtureOf(params: JsonObject): JsonObject {
  if (params.fixture === undefined) return {};
  if (!isJsonObject(params.fixture)) throw new ControllerError('INVALID_PARAMS', 'params.fixture must be an object.');
  return params.fixture;
}

/** A seeded product in the catalog's shape, defaults filled in (comply-test-controller.md, seed_product). */
export function seededProduct(productId: string, fixture: JsonObject): CatalogProduct {
  const channels = channelsOf(fixture.channels);
  const formats = Array.isArray(fixture.format_ids) ? fixture.format_ids.filter(isJsonObject) : [];
  return {
    product_id: productId,
    name: text(fixture.name, `Sandbox product ${productId}`),
    description: text(fixture.description, 'A product seeded through comply_test_controller (sandbox).', 2000),
    channels: channels.length > 0 ? channels : ['display'],
    delivery_type: fixture.delivery_type === 'guaranteed' ? 'guaranteed' : 'non_guaranteed',
    format_ids: (formats.length > 0 ? formats : [{ id: 'display_300x250' }]).map((f) => ({
      agent_url: text(f.agent_url, FORMAT_AGENT),
      id: text(f.id, 'display_300x250'),
    })),
    pricing_options: (Array.isArray(fixture.pricing_options) ? fixture.pricing_options.filter(isJsonObject) : []).map(
      (o) => pricingOption(text(o.pricing_option_id, `${productId}-cpm`), o),
    ),
    keywords: [],
  };
}

function pricingOption(id: string, fixture: JsonObject): CatalogProduct['pricing_options'][number] {
  const rate = [fixture.rate, fixture.fixed_price, fixture.floor_price].find((v) => typeof v === 'number' && v >= 0);
  return { pricing_option_id: id, pricing_model: 'cpm', rate: (rate as number | undefined) ?? 1, currency: 'USD' };
}

/** Seeds once; the same fixture again is `existing`, a different one INVALID_PARAMS (never merged). */
async function seed(
  db: SellerDb,
  principal: string,
  kind: 'product',
  id: string,
  fixture: JsonObject,
  body: JsonObject,
) {
  const existing = await db.getFixture(principal, kind, id);
  if (existing !== undefined) {
    if (canonicalJson(existing.fixture) !== canonicalJson(fixture)) {
      throw new ControllerError(
        'INVALID_PARAMS',
        `${kind} ${id} was seeded with another fixture; use force_* to change it.`,
      );
    }
    return { previous_state: 'existing', current_state: 'existing', message: `${kind} ${id} already seeded.` };
  }
  await db.putFixture(principal, kind, id, { ...body, fixture });
  return { message: `Seeded ${kind} ${id}.` };
}

/**
 * The reference seller's `comply_test_controller` scenarios, over its own state (so every forced
 * change shows in `get_media_buys`, `list_creatives` and `get_media_buy_delivery`), scoped to the
 * caller's principal (another principal's entity is NOT_FOUND).
 */
export function sandboxScenarios(db: SellerDb, now: () => number): TestControllerOptions['scenarios'] {
  return {
    async force_media_buy_status(params, ctx) {
      const id = String(params.media_buy_id);
      const buy = await db.getMediaBuy(ctx.principal, id);
      if (buy === undefined) throw new ControllerError('NOT_FOUND', `No media buy ${id}.`, { currentState: null });
      const from = typeof buy.body.status === 'string' ? buy.body.status : 'active';
      const to = assertTransition('media_buy', from, params.status);
      const body: JsonObject = { ...buy.body, status: to };
      if (to === 'rejected') body.rejection_reason = text(params.rejection_reason, 'Rejected', 2000);
      if (to !== from) body.revision = (typeof buy.body.revision === 'number' ? buy.body.revision : 1) + 1;
      await db.saveMediaBuy(ctx.principal, id, body, buy.createdAt);
      return { previous_state: from, current_state: to, message: `Media buy ${id}: ${from} -> ${to}.` };
    },
    async force_creative_status(params, ctx) {
      const id = String(params.creative_id);
      const creative = await db.getCreative(ctx.principal, id);
      if (creative === undefined) throw new ControllerError('NOT_FOUND', `No creative ${id}.`, { currentState: null });
      const from = String(creative.status);
      const to = assertTransition('creative', from, params.status);
      const body: JsonObject = { ...creative, status: to, updated_date: new Date(now()).toISOString() };
      if (to === 'rejected') body.rejection_reason = text(params.rejection_reason, 'Rejected', 2000);
      await db.upsertCreative(ctx.principal, id, body, now());
      return { previous_state: from, current_state: to, message: `Creative ${id}: ${from} -> ${to}.` };
    },
    async simulate_delivery(params, ctx) {
      const id = String(params.media_buy_id);
      if ((await db.getMediaBuy(ctx.principal, id)) === undefined)
        throw new ControllerError('NOT_FOUND', `No media buy ${id}.`);
      const simulated = simulatedCounts(params, DELIVERY_METRICS);
      const before = (await db.getFixture(ctx.principal, 'delivery', id)) ?? {};
      const cumulative: JsonObject = {};
      for (const metric of DELIVERY_METRICS) {
        cumulative[metric] = (Number(before[metric] ?? 0) || 0) + (Number(simulated[metric] ?? 0) || 0);
      }
      const spent = isJsonObject(before.reported_spend) ? Number(before.reported_spend.amount) || 0 : 0;
      const added = isJsonObject(simulated.reported_spend) ? Number(simulated.reported_spend.amount) : 0;
      cumulative.reported_spend = { amount: Math.round((spent + added) * 100) / 100, currency: 'USD' };
      await db.putFixture(ctx.principal, 'delivery', id, cumulative);
      return { simulated, cumulative, message: `Delivery added to ${id}.` };
    },
    async simulate_budget_spend(params, ctx) {
      if (typeof params.media_buy_id !== 'string') {
        throw new ControllerError(
          'INVALID_PARAMS',
          'params.media_buy_id is required (this seller keeps no account budgets).',
        );
      }
      const buy = await db.getMediaBuy(ctx.principal, params.media_buy_id);
      if (buy === undefined) throw new ControllerError('NOT_FOUND', `No media buy ${params.media_buy_id}.`);
      const percentage = params.spend_percentage;
      if (typeof percentage !== 'number' || !(percentage >= 0 && percentage <= 100)) {
        throw new ControllerError('INVALID_PARAMS', 'params.spend_percentage must be a number from 0 to 100.');
      }
      const packages = Array.isArray(buy.body.packages) ? buy.body.packages.filter(isJsonObject) : [];
      const budget = packages.reduce((sum, p) => sum + (typeof p.budget === 'number' ? p.budget : 0), 0);
      if (budget <= 0) throw new ControllerError('INVALID_PARAMS', `Media buy ${params.media_buy_id} has no budget.`);
      const amount = Math.round(budget * percentage) / 100;
      const simulated = {
        spend_percentage: percentage,
        computed_spend: { amount, currency: 'USD' },
        budget: { amount: budget, currency: 'USD' },
      };
      await db.putFixture(ctx.principal, 'spend', params.media_buy_id, simulated);
      return { simulated, message: `Budget of ${params.media_buy_id} ${percentage}% consumed.` };
    },
    async seed_product(params, ctx) {
      const id = String(params.product_id);
      const fixture = fixtureOf(params);
      return await seed(db, ctx.principal, 'product', id, fixture, { product: seededProduct(id, fixture) });
    },
    async seed_pricing_option(params, ctx) {
      const productId = String(params.product_id);
      const optionId = String(params.pricing_option_id);
      const stored = await db.getFixture(ctx.principal, 'product', productId);
      if (stored === undefined || !isJsonObject(stored.product)) {
        throw new ControllerError('INVALID_PARAMS', `Seed product ${productId} before its pricing options.`);
      }
      const product = stored.product as unknown as CatalogProduct;
      const option = pricingOption(optionId, fixtureOf(params));
      const previous = product.pricing_options.find((o) => o.pricing_option_id === optionId);
      if (previous !== undefined) {
        if (canonicalJson(previous) !== canonicalJson(option)) {
          throw new ControllerError('INVALID_PARAMS', `Pricing option ${optionId} was seeded with another fixture.`);
        }
        return { previous_state: 'existing', current_state: 'existing' };
      }
      product.pricing_options.push(option);
      await db.putFixture(ctx.principal, 'product', productId, { ...stored, product });
      return { message: `Seeded pricing option ${optionId} on ${productId}.` };
    },
    async seed_creative(params, ctx) {
      const id = String(params.creative_id);
      const fixture = fixtureOf(params);
      const at = new Date(now()).toISOString();
      const status = typeof fixture.status === 'string' ? fixture.status : 'approved';
      assertTransition('creative', status, status); // a known status
      const body: JsonObject = {
        creative_id: id,
        name: text(fixture.name, id),
        status,
        created_date: at,
        updated_date: at,
      };
      // list_creatives must show a format_id: a fixture without one gets a generic display format.
      const format = isJsonObject(fixture.format_id) ? fixture.format_id : {};
      body.format_id = { agent_url: text(format.agent_url, FORMAT_AGENT), id: text(format.id, 'display_static') };
      const existing = await db.getCreative(ctx.principal, id);
      if (existing !== undefined) return { previous_state: 'existing', current_state: 'existing' };
      await db.upsertCreative(ctx.principal, id, body, now());
      return { message: `Seeded creative ${id}.` };
    },
    async seed_media_buy(params, ctx) {
      const id = String(params.media_buy_id);
      const fixture = fixtureOf(params);
      if ((await db.getMediaBuy(ctx.principal, id)) !== undefined)
        return { previous_state: 'existing', current_state: 'existing' };
      const status = typeof fixture.status === 'string' ? fixture.status : 'active';
      assertTransition('media_buy', status, status);
      const packages = Array.isArray(fixture.packages) ? fixture.packages.filter(isJsonObject) : [];
      await db.saveMediaBuy(
        ctx.principal,
        id,
        {
          media_buy_id: id,
          status,
          confirmed_at: new Date(now()).toISOString(),
          revision: 1,
          packages: packages.map((p, i) => ({ ...p, package_id: text(p.package_id, `pkg_${i + 1}`) })),
        },
        now(),
      );
      return { message: `Seeded media buy ${id}.` };
    },
  };
}
