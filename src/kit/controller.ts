import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { getValidator } from '../schemas/adcp-validator.js';
import { describeIssues, type ValidationIssue } from '../schemas/validation-result.js';
import { assertTransition } from '../server/tools/lifecycles.js';
import { ControllerError, type ControllerScenario } from '../server/tools/test-controller.js';
import { canonicalJson } from '../webhooks/canonical-json.js';
import type { KitKind, KitRecords } from './records.js';
import { allowedActionsProblem } from './actions.js';
import { packageIdOf } from './media-buy-rules.js';
import { appendHistory, CONTROLLER_ACTOR, statusAction } from './buy-history.js';
import { addDay, DELIVERY_COUNTS, isCalendarDate, money } from './delivery.js';

const FORMAT_AGENT = 'https://creative.adcontextprotocol.org';
/** Counts simulate_delivery adds up (core/delivery-metrics.json); the objects below it replaces. */
const DELIVERY_METRICS = DELIVERY_COUNTS;
const DELIVERY_OBJECTS = ['viewability', 'reach_window', 'quartile_data', 'dooh_metrics'] as const;

interface ScenarioDeps {
  records: KitRecords;
  now: () => number;
}

const text = (value: unknown, fallback: string, max = 256) =>
  typeof value === 'string' && value !== '' ? value.slice(0, max) : fallback;

function fixtureOf(params: JsonObject): JsonObject {
  if (params.fixture === undefined) return {};
  if (!isJsonObject(params.fixture)) throw new ControllerError('INVALID_PARAMS', 'params.fixture must be an object.');
  return params.fixture;
}

function idParam(params: JsonObject, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value === '' || value.length > 256) {
    throw new ControllerError('INVALID_PARAMS', `params.${name} must be a string of 1 to 256 characters.`);
  }
  return value;
}

/** A pricing option from a seed fixture (3.1 pricing-options, CPM by default). */
function pricingOption(id: string, fixture: JsonObject): JsonObject {
  const option: JsonObject = {
    pricing_option_id: id,
    pricing_model: text(fixture.pricing_model, 'cpm', 32),
    currency: text(fixture.currency, 'USD', 3),
  };
  for (const field of ['fixed_price', 'floor_price', 'min_spend_per_package'] as const) {
    if (typeof fixture[field] === 'number' && fixture[field] >= 0) option[field] = fixture[field];
  }
  // `rate` is the fixed price's name before 3.0 (the provenance storyboards' fixtures still say
  // `rate: 5.00`): the fixed price when the fixture names no price of its own (decision 0317).
  if (
    option.fixed_price === undefined &&
    option.floor_price === undefined &&
    typeof fixture.rate === 'number' &&
    fixture.rate >= 0
  ) {
    option.fixed_price = fixture.rate;
  }
  if (isJsonObject(fixture.price_guidance)) option.price_guidance = fixture.price_guidance;
  if (option.fixed_price === undefined && option.floor_price === undefined) {
    // A floor-priced (auction) option states its guidance; the 3.1 shape needs one of the two prices.
    option.floor_price = 1;
  }
  if (option.fixed_price === undefined && option.price_guidance === undefined) {
    const floor = option.floor_price as number;
    option.price_guidance = { p25: floor, p50: floor * 1.5, p75: floor * 2, p90: floor * 3 };
  }
  return option;
}

/**
 * The pricing option of a product seeded without any (most storyboard fixtures: the runner seeds
 * the product, then its options through seed_pricing_option): a CPM floor, so the product is a
 * valid 3.1 product (`pricing_options` has minItems 1) and buyable until its first option is
 * seeded, which replaces it (decision 0317).
 */
export function defaultPricingOption(productId: string): JsonObject {
  return pricingOption(`${productId}-cpm`, {});
}

/** enums/channels.json (3.1). */
const CHANNELS = new Set([
  'display',
  'olv',
  'social',
  'search',
  'ctv',
  'linear_tv',
  'radio',
  'streaming_audio',
  'podcast',
  'dooh',
  'ooh',
  'print',
  'cinema',
  'email',
  'gaming',
  'retail_media',
  'influencer',
  'affiliate',
  'product_placement',
  'sponsored_intelligence',
]);

/**
 * A fixture's channels as 3.1 names them: the storyboards' fixtures say `video`, which is no 3.1
 * channel; it is online video (`olv`). Other unknown names are dropped.
 */
export function channelsOf(value: unknown): string[] {
  const names = Array.isArray(value) ? value.filter((c): c is string => typeof c === 'string') : [];
  return [...new Set(names.map((c) => (c === 'video' ? 'olv' : c)).filter((c) => CHANNELS.has(c)))];
}

let lastSeed = 0;
/** When a product was seeded, in ms, strictly increasing within this process (two seeds in one ms keep their order). */
function seedClock(): number {
  lastSeed = Math.max(Date.now(), lastSeed + 1);
  return lastSeed;
}

/**
 * The fields of a 3.1 Product (core/product.json `properties`, 3.1.19): a seed fixture's other
 * keys are not kept (the schema allows additional properties; the kit's records keep their own
 * keys beside the product's). test/kit checks this list against the schema.
 */
export const PRODUCT_FIELDS: ReadonlySet<string> = new Set([
  'product_id',
  'name',
  'description',
  'publisher_properties',
  'channels',
  'format_ids',
  'format_options',
  'placements',
  'video_placement_types',
  'audio_distribution_types',
  'sponsored_placement_types',
  'social_placement_surfaces',
  'delivery_type',
  'exclusivity',
  'pricing_options',
  'forecast',
  'outcome_measurement',
  'delivery_measurement',
  'measurement_terms',
  'performance_standards',
  'cancellation_policy',
  'allowed_actions',
  'reporting_capabilities',
  'creative_policy',
  'is_custom',
  'property_targeting_allowed',
  'data_provider_signals',
  'included_signals',
  'signal_targeting_options',
  'signal_targeting_rules',
  'signal_targeting_allowed',
  'catalog_types',
  'metric_optimization',
  'vendor_metric_optimization',
  'max_optimization_goals',
  'measurement_readiness',
  'conversion_tracking',
  'catalog_match',
  'brief_relevance',
  'expires_at',
  'product_card',
  'product_card_detailed',
  'collections',
  'collection_targeting_allowed',
  'installments',
  'enforced_policies',
  'trusted_match',
  'material_submission',
  'ext',
]);

/** The reporting capabilities of a sandbox product that states none: daily, impressions, spend and clicks. */
export const DEFAULT_REPORTING_CAPABILITIES: JsonObject = {
  available_reporting_frequencies: ['daily'],
  expected_delay_minutes: 240,
  timezone: 'UTC',
  supports_webhooks: false,
  available_metrics: ['impressions', 'spend', 'clicks'],
  date_range_support: 'date_range',
};

/**
 * What the 3.1 schemas say is wrong with `product` (as a get_products answer carries it, so the
 * validators built into the package serve too), or `undefined` when no 3.1 schemas are at hand.
 */
export function productIssues(product: JsonObject): ValidationIssue[] | undefined {
  let checked;
  try {
    checked = getValidator('3.1').response('get_products', {
      status: 'completed',
      products: [product],
      cache_scope: 'account',
    });
  } catch {
    return undefined;
  }
  return checked.ok ? [] : checked.issues;
}

/** The product field an issue of `productIssues` is about (`/products/0/x/...` -> `x`), else undefined. */
function fieldOf(issue: ValidationIssue): string | undefined {
  const token = /^\/products\/0\/([^/]+)/.exec(issue.pointer)?.[1];
  return token?.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The product the kit builds from a fixture, with its defaults: what a 3.1 product requires,
 * normalized (3.1 channels, a selection_type on each property, `{ agent_url, id }` format ids,
 * the kit's pricing options), each taken from the fixture when it gives one.
 */
function builtProduct(productId: string, fixture: JsonObject): JsonObject {
  const channels = channelsOf(fixture.channels);
  const formats = Array.isArray(fixture.format_ids) ? fixture.format_ids.filter(isJsonObject) : [];
  const options = Array.isArray(fixture.pricing_options) ? fixture.pricing_options.filter(isJsonObject) : [];
  const product: JsonObject = {
    product_id: productId,
    name: text(fixture.name, `Sandbox product ${productId}`),
    description: text(fixture.description, 'A product seeded through comply_test_controller (sandbox).', 2000),
    // A fixture's property without a selection_type (get-products-pagination-integrity seeds one)
    // selects all of its domain's properties: the 3.1 shape requires the field.
    publisher_properties: Array.isArray(fixture.publisher_properties)
      ? fixture.publisher_properties.map((p) =>
          isJsonObject(p) && p.selection_type === undefined ? { ...p, selection_type: 'all' } : p,
        )
      : [{ publisher_domain: 'sandbox-seller.example', selection_type: 'all' }],
    channels: channels.length > 0 ? channels : ['display'],
    delivery_type: fixture.delivery_type === 'guaranteed' ? 'guaranteed' : 'non_guaranteed',
    pricing_options:
      options.length > 0
        ? options.map((o) => pricingOption(text(o.pricing_option_id, `${productId}-cpm`), o))
        : [defaultPricingOption(productId)],
    // The fixture's reporting capabilities over the kit's defaults for what it leaves out.
    reporting_capabilities: {
      ...DEFAULT_REPORTING_CAPABILITIES,
      ...(isJsonObject(fixture.reporting_capabilities) ? fixture.reporting_capabilities : {}),
    },
    // Checked by seed_product (allowedActionsProblem): the buy-action template (decision 0210).
    ...(Array.isArray(fixture.allowed_actions) ? { allowed_actions: fixture.allowed_actions } : {}),
  };
  // A 3.1 product names its formats by format_ids or declares format_options: a default
  // format id only when the fixture gives neither.
  if (formats.length > 0 || !Array.isArray(fixture.format_options)) {
    product.format_ids = (formats.length > 0 ? formats : [{ id: 'display_300x250' }]).map((f) => ({
      agent_url: text(f.agent_url, FORMAT_AGENT),
      id: text(f.id, 'display_300x250'),
    }));
  }
  return product;
}

/**
 * A seeded product in the 3.1 shape (comply-test-controller.md, seed_product: "fixture: Product
 * shape ... Sellers MAY fill in defaults for omitted fields"): the kit's built product (above),
 * plus every other 3.1 Product field the fixture carries (`signal_targeting_allowed`,
 * `metric_optimization`, `format_options`, `creative_policy`, ...) that the 3.1 schemas accept.
 * A field they refuse is dropped (so is every extra field when the product as a whole is refused,
 * as by an inconsistent signal-targeting surface); a fixture whose built product is itself refused
 * (a malformed reporting_capabilities or publisher_properties) is INVALID_PARAMS. Without 3.1
 * schemas at hand (`productIssues` undefined), only the built product is kept.
 */
export function seededProduct(
  productId: string,
  fixture: JsonObject,
  check: (product: JsonObject) => ValidationIssue[] | undefined = productIssues,
): JsonObject {
  const built = builtProduct(productId, fixture);
  const extras = Object.keys(fixture).filter((k) => PRODUCT_FIELDS.has(k) && !Object.hasOwn(built, k));
  const product: JsonObject = { ...built };
  for (const field of extras) product[field] = fixture[field];
  // One issue per check (the validators stop at the first): each pass drops the extra it names.
  for (let pass = 0; pass <= extras.length; pass++) {
    const issues = check(product);
    if (issues === undefined) break;
    if (issues.length === 0) return product;
    const field = fieldOf(issues[0]!);
    if (field === undefined || !extras.includes(field) || !Object.hasOwn(product, field)) break;
    delete product[field];
  }
  const issues = check(built);
  if (issues !== undefined && issues.length > 0) {
    throw new ControllerError('INVALID_PARAMS', `fixture is not a 3.1 product: ${describeIssues(issues, 3)}.`);
  }
  return built;
}

/**
 * The kit's `comply_test_controller` scenarios, over the kit's own records (so every forced change
 * shows in `get_media_buys`, `list_creatives`, `list_accounts` and `get_media_buy_delivery`), scoped
 * to the caller's principal (another principal's entity is NOT_FOUND).
 */
export function kitScenarios(deps: ScenarioDeps): Record<string, ControllerScenario> {
  const { records, now } = deps;
  const iso = () => new Date(now()).toISOString();

  /** Moves an entity along its lifecycle (INVALID_TRANSITION when the spec's machine refuses). */
  const force = async (
    principal: string,
    kind: 'media_buy' | 'creative' | 'account',
    id: string,
    to: unknown,
    extra: (body: JsonObject, to: string, from: string) => void,
  ): Promise<JsonObject> => {
    const record = await records.get(principal, kind, id);
    if (record === undefined) {
      throw new ControllerError('NOT_FOUND', `No ${kind.replace('_', ' ')} ${id}.`, { currentState: null });
    }
    const from = String(record.body.status);
    const next = assertTransition(kind, from, to);
    const body: JsonObject = { ...record.body, status: next };
    extra(body, next, from);
    if (!(await records.put(principal, kind, id, body, record.version))) {
      throw new ControllerError('INVALID_STATE', `${id} changed meanwhile; try again.`, { currentState: from });
    }
    return { previous_state: from, current_state: next, message: `${kind} ${id}: ${from} -> ${next}.` };
  };

  /** Seeds once; the same fixture again is `existing`, a different one INVALID_PARAMS (never merged). */
  const seed = async (principal: string, kind: KitKind, id: string, fixture: JsonObject, body: JsonObject) => {
    const existing = await records.get(principal, kind, id);
    if (existing !== undefined) {
      if (canonicalJson(existing.body.fixture ?? null) !== canonicalJson(fixture)) {
        throw new ControllerError(
          'INVALID_PARAMS',
          `${kind} ${id} was seeded with another fixture; use force_* to change it.`,
        );
      }
      // Seeded again: the newest seed again (seededFirst). A concurrent write wins; the order is a courtesy.
      if (body.seeded_at !== undefined) {
        await records.put(principal, kind, id, { ...existing.body, seeded_at: body.seeded_at }, existing.version);
      }
      return { previous_state: 'existing', current_state: 'existing', message: `${kind} ${id} already seeded.` };
    }
    await records.put(principal, kind, id, body, 0);
    return { message: `Seeded ${kind} ${id}.` };
  };

  return {
    async force_media_buy_status(params, ctx) {
      const id = idParam(params, 'media_buy_id');
      return await force(ctx.principal, 'media_buy', id, params.status, (body, to, from) => {
        if (to === 'rejected') body.rejection_reason = text(params.rejection_reason, 'Rejected', 2000);
        if (to === 'canceled') body.cancellation = { canceled_at: iso(), canceled_by: 'seller' };
        body.revision = Number(body.revision ?? 1) + 1;
        body.updated_at = iso();
        appendHistory(body, {
          revision: body.revision as number,
          timestamp: body.updated_at as string,
          actor: CONTROLLER_ACTOR,
          action: statusAction(from, to),
          summary: `Status ${from} -> ${to}, forced through comply_test_controller.`,
        });
      });
    },
    async force_creative_status(params, ctx) {
      const id = idParam(params, 'creative_id');
      return await force(ctx.principal, 'creative', id, params.status, (body, to) => {
        if (to === 'rejected') body.rejection_reason = text(params.rejection_reason, 'Rejected', 2000);
        body.updated_date = iso();
      });
    },
    async force_account_status(params, ctx) {
      const id = idParam(params, 'account_id');
      return await force(ctx.principal, 'account', id, params.status, () => undefined);
    },
    async force_create_media_buy_arm(params, ctx) {
      const arm = params.arm;
      if (arm !== 'submitted' && arm !== 'input-required') {
        throw new ControllerError('INVALID_PARAMS', 'params.arm must be submitted or input-required.');
      }
      // comply-test-controller-request.json: task_id at most 128 characters, required for submitted.
      if (arm === 'submitted' && idParam(params, 'task_id').length > 128) {
        throw new ControllerError('INVALID_PARAMS', 'params.task_id must be at most 128 characters.');
      }
      const message = params.message === undefined ? undefined : text(params.message, '', 2000);
      const directive: JsonObject = { arm, ...(arm === 'submitted' ? { task_id: params.task_id } : {}) };
      if (message !== undefined) directive.message = message;
      const existing = await records.get(ctx.principal, 'directive', 'create_media_buy');
      // A second directive before the first is consumed overwrites it (comply-test-controller.md).
      await records.put(ctx.principal, 'directive', 'create_media_buy', directive, existing?.version ?? 0);
      return { forced: directive, message: `The next create_media_buy answers ${arm}.` };
    },
    async simulate_delivery(params, ctx) {
      const id = idParam(params, 'media_buy_id');
      if ((await records.get(ctx.principal, 'media_buy', id)) === undefined) {
        throw new ControllerError('NOT_FOUND', `No media buy ${id}.`);
      }
      // The UTC day the batch is reported on (comply-test-controller.md, `delivery_date`), today by default.
      const date = params.delivery_date ?? iso().slice(0, 10);
      if (!isCalendarDate(date)) {
        throw new ControllerError('INVALID_PARAMS', 'params.delivery_date must be a calendar date, YYYY-MM-DD.');
      }
      const simulated = simulatedCounts(params, DELIVERY_METRICS);
      for (const name of DELIVERY_OBJECTS) {
        if (params[name] === undefined) continue;
        if (!isJsonObject(params[name]))
          throw new ControllerError('INVALID_PARAMS', `params.${name} must be an object.`);
        simulated[name] = params[name];
      }
      for (const name of ['reach', 'frequency'] as const) {
        const value = params[name];
        if (value === undefined) continue;
        if (typeof value !== 'number' || !(value >= 0)) {
          throw new ControllerError('INVALID_PARAMS', `params.${name} must be a non-negative number.`);
        }
        simulated[name] = value;
      }
      const before = await records.get(ctx.principal, 'delivery', id);
      const cumulative: JsonObject = {};
      for (const name of [...DELIVERY_OBJECTS, 'reach', 'frequency'] as const) {
        const value = simulated[name] ?? before?.body[name];
        if (value !== undefined) cumulative[name] = value;
      }
      for (const metric of DELIVERY_METRICS) {
        if (before?.body[metric] === undefined && simulated[metric] === undefined) continue;
        cumulative[metric] = Number(before?.body[metric] ?? 0) + Number(simulated[metric] ?? 0);
      }
      const spent = isJsonObject(before?.body.reported_spend) ? Number(before.body.reported_spend.amount) : 0;
      const added = isJsonObject(simulated.reported_spend) ? Number(simulated.reported_spend.amount) : 0;
      cumulative.reported_spend = { amount: money(spent + added), currency: 'USD' };
      const stored = { ...cumulative, kit_days: addDay(before?.body.kit_days, date, simulated) };
      if (!(await records.put(ctx.principal, 'delivery', id, stored, before?.version ?? 0))) {
        throw new ControllerError('INVALID_STATE', 'Delivery was simulated meanwhile; try again.');
      }
      return { simulated, cumulative, message: `Delivery added to ${id}.` };
    },
    async simulate_budget_spend(params, ctx) {
      const id = idParam(params, 'media_buy_id');
      const buy = await records.get(ctx.principal, 'media_buy', id);
      if (buy === undefined) throw new ControllerError('NOT_FOUND', `No media buy ${id}.`);
      const percentage = params.spend_percentage;
      if (typeof percentage !== 'number' || !(percentage >= 0 && percentage <= 100)) {
        throw new ControllerError('INVALID_PARAMS', 'params.spend_percentage must be a number from 0 to 100.');
      }
      const budget = Number(buy.body.total_budget ?? 0);
      const currency = text(buy.body.currency, 'USD', 3);
      const amount = Math.round(budget * percentage) / 100;
      const before = await records.get(ctx.principal, 'delivery', id);
      await records.put(
        ctx.principal,
        'delivery',
        id,
        { ...before?.body, reported_spend: { amount, currency } },
        before?.version ?? 0,
      );
      return {
        simulated: {
          spend_percentage: percentage,
          computed_spend: { amount, currency },
          budget: { amount: budget, currency },
        },
        message: `Budget of ${id} ${percentage}% consumed.`,
      };
    },
    async seed_product(params, ctx) {
      const id = idParam(params, 'product_id');
      const fixture = fixtureOf(params);
      const problem = allowedActionsProblem(fixture.allowed_actions);
      if (problem !== undefined) throw new ControllerError('INVALID_PARAMS', `fixture.${problem}.`);
      const body: JsonObject = { ...seededProduct(id, fixture), fixture, seeded_at: seedClock() };
      // Served until seed_pricing_option seeds the product's first own option.
      if (!(Array.isArray(fixture.pricing_options) && fixture.pricing_options.some(isJsonObject))) {
        body.kit_default_pricing = true;
      }
      return await seed(ctx.principal, 'product', id, fixture, body);
    },
    async seed_pricing_option(params, ctx) {
      const productId = idParam(params, 'product_id');
      const optionId = idParam(params, 'pricing_option_id');
      const stored = await records.get(ctx.principal, 'product', productId);
      if (stored === undefined) {
        throw new ControllerError('INVALID_PARAMS', `Seed product ${productId} before its pricing options.`);
      }
      const option = pricingOption(optionId, fixtureOf(params));
      // The kit's default option gives way to the first option seeded (decision 0317).
      const { kit_default_pricing: placeholder, ...product } = stored.body;
      const options =
        placeholder !== true && Array.isArray(product.pricing_options)
          ? product.pricing_options.filter(isJsonObject)
          : [];
      const previous = options.find((o) => o.pricing_option_id === optionId);
      if (previous !== undefined) {
        if (canonicalJson(previous) !== canonicalJson(option)) {
          throw new ControllerError('INVALID_PARAMS', `Pricing option ${optionId} was seeded with another fixture.`);
        }
        return { previous_state: 'existing', current_state: 'existing' };
      }
      const body = { ...product, pricing_options: [...options, option] };
      if (!(await records.put(ctx.principal, 'product', productId, body, stored.version))) {
        throw new ControllerError('INVALID_STATE', `${productId} changed meanwhile; try again.`);
      }
      return { message: `Seeded pricing option ${optionId} on ${productId}.` };
    },
    async seed_creative(params, ctx) {
      const id = idParam(params, 'creative_id');
      const fixture = fixtureOf(params);
      const status = typeof fixture.status === 'string' ? fixture.status : 'approved';
      assertTransition('creative', status, status); // a known status
      const format = isJsonObject(fixture.format_id) ? fixture.format_id : {};
      const at = iso();
      return await seed(ctx.principal, 'creative', id, fixture, {
        creative_id: id,
        name: text(fixture.name, id),
        format_id: { agent_url: text(format.agent_url, FORMAT_AGENT), id: text(format.id, 'display_300x250') },
        status,
        created_date: at,
        updated_date: at,
        fixture,
      });
    },
    async seed_creative_format(params, ctx) {
      const id = idParam(params, 'format_id');
      const fixture = fixtureOf(params);
      return await seed(ctx.principal, 'format', id, fixture, {
        format_id: { agent_url: text(fixture.agent_url, FORMAT_AGENT), id },
        name: text(fixture.name, id),
        fixture,
      });
    },
    async seed_account(params, ctx) {
      const id = idParam(params, 'account_id');
      const fixture = fixtureOf(params);
      const status = typeof fixture.status === 'string' ? fixture.status : 'active';
      assertTransition('account', status, status);
      return await seed(ctx.principal, 'account', id, fixture, {
        account_id: id,
        name: text(fixture.name, `Sandbox account ${id}`),
        status,
        sandbox: true,
        fixture,
      });
    },
    async seed_media_buy(params, ctx) {
      const id = idParam(params, 'media_buy_id');
      const fixture = fixtureOf(params);
      const status = typeof fixture.status === 'string' ? fixture.status : 'active';
      assertTransition('media_buy', status, status);
      const packages = (Array.isArray(fixture.packages) ? fixture.packages.filter(isJsonObject) : []).map(
        (p, i): JsonObject => ({
          ...p,
          package_id: text(p.package_id, packageIdOf(id, i + 1)),
        }),
      );
      await checkPackageIds(records, ctx.principal, id, packages);
      const at = iso();
      const budget = packages.reduce((sum, p) => sum + (typeof p.budget === 'number' ? p.budget : 0), 0);
      return await seed(ctx.principal, 'media_buy', id, fixture, {
        media_buy_id: id,
        status,
        currency: text(fixture.currency, 'USD', 3),
        total_budget: budget,
        confirmed_at: at,
        created_at: at,
        updated_at: at,
        revision: 1,
        packages,
        fixture,
        kit_history: [
          {
            revision: 1,
            timestamp: at,
            actor: CONTROLLER_ACTOR,
            action: 'created',
            summary: 'Seeded through comply_test_controller.',
          },
        ],
      });
    },
  };
}

/**
 * A seeded buy's package ids are its own (decision 0316): one named twice in the fixture, or held
 * by another buy of the caller, is INVALID_PARAMS. The same buy seeded again is answered before.
 */
async function checkPackageIds(
  records: KitRecords,
  principal: string,
  mediaBuyId: string,
  packages: JsonObject[],
): Promise<void> {
  const ids = packages.map((p) => String(p.package_id));
  const held = new Set(ids.filter((id, i) => ids.indexOf(id) !== i));
  if ((await records.get(principal, 'media_buy', mediaBuyId)) === undefined) {
    for (const buy of await records.list(principal, 'media_buy')) {
      for (const p of Array.isArray(buy.body.packages) ? buy.body.packages.filter(isJsonObject) : []) {
        if (ids.includes(String(p.package_id))) held.add(String(p.package_id));
      }
    }
  }
  if (held.size > 0) {
    throw new ControllerError(
      'INVALID_PARAMS',
      `fixture.packages: package_id ${[...held].join(', ')} is already held; package ids are unique across buys.`,
    );
  }
}

/**
 * The counts a `simulate_delivery` adds (comply-test-controller.md): each of `metrics` a
 * non-negative integer, `reported_spend` an `{ amount, currency }`; INVALID_PARAMS otherwise.
 */
export function simulatedCounts(params: JsonObject, metrics: readonly string[]): JsonObject {
  const simulated: JsonObject = {};
  for (const metric of metrics) {
    const value = params[metric];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new ControllerError('INVALID_PARAMS', `params.${metric} must be a non-negative integer.`);
    }
    simulated[metric] = value;
  }
  const spend = params.reported_spend;
  if (spend !== undefined) {
    if (!isJsonObject(spend) || typeof spend.amount !== 'number' || !(spend.amount >= 0)) {
      throw new ControllerError('INVALID_PARAMS', 'params.reported_spend must be { amount, currency }.');
    }
    simulated.reported_spend = { amount: spend.amount, currency: text(spend.currency, 'USD', 3) };
  }
  return simulated;
}
