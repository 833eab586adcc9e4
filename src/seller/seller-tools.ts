import { createHash, randomUUID } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import { findProduct, productToWire, searchCatalog, type CatalogProduct } from './catalog.js';
import { listTools } from './list-tools.js';
import { kitTools, sellerKit } from './seller-kit.js';
import type { SellerDb } from './seller-db.js';

export interface SellerTimings {
  /** Delay before a submitted media buy reports `working` (ms). Default 500. */
  workingAfterMs: number;
  /** Delay before it completes (ms, from submission). Default 2000. */
  completeAfterMs: number;
}

export interface SellerToolDeps {
  db: SellerDb;
  timings: SellerTimings;
  /** Throws an AdcpToolError when the request asks for a failure. */
  fault: (tool: string, args: JsonObject, headers: import('node:http').IncomingMessage['headers']) => void;
  now: () => number;
  /**
   * Called after create_media_buy's side effect (the task stored and its work started), before the
   * answer goes back: the crash test holds the request there and SIGKILLs the process.
   */
  afterEffect?: (tool: string, headers: import('node:http').IncomingMessage['headers']) => Promise<void>;
  /**
   * Called before get_products does its work: the cancel tests hold a call there until its
   * AbortSignal fires, to see that a cancel reaches the instance running it.
   */
  beforeWork?: (tool: string, args: JsonObject, signal: AbortSignal) => Promise<void>;
}

const MAX_ITEMS = 100;
/**
 * The largest package budget the reference seller takes: a trillion in the buy's currency, far past
 * any real budget and exact to the cent as a double (1e14 cents < 2^53). `1e308` is finite, and
 * would make totals and spend simulations overflow to Infinity (docs/decisions/0127).
 */
const MAX_BUDGET = 1e12;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, Math.max(0, ms));
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

function invalid(message: string, field: string): AdcpToolError {
  return new AdcpToolError('INVALID_REQUEST', message, { field });
}

function shortString(value: unknown, field: string, max = 128): string {
  if (typeof value !== 'string' || value === '' || value.length > max)
    throw invalid(`${field} must be a string of 1 to ${max} characters.`, field);
  return value;
}

/**
 * The flight's business rule the schema cannot state (error-compliance storyboard, reversed dates):
 * `end_time` after `start_time` (`asap` is now). Checked before anything is looked up.
 */
function checkFlight(start: unknown, end: unknown, now: number): void {
  const startMs = start === 'asap' ? now : typeof start === 'string' ? Date.parse(start) : Number.NaN;
  const endMs = typeof end === 'string' ? Date.parse(end) : Number.NaN;
  if (Number.isFinite(startMs) && Number.isFinite(endMs) && endMs <= startMs) {
    throw adcpError('VALIDATION_ERROR', { message: 'end_time must be after start_time.', field: 'end_time' });
  }
}

/** A stable number in [0, 1) from a string: deterministic delivery figures. */
function unit(seed: string): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) / 2 ** 32;
}

/** Products seeded for this principal through comply_test_controller (sandbox fixtures). */
async function seededProducts(db: SellerDb, principal: string): Promise<CatalogProduct[]> {
  return (await db.listFixtures(principal, 'product'))
    .map((f) => f.product)
    .filter(isJsonObject) as unknown as CatalogProduct[];
}

const text = (value: unknown, fallback: string): string =>
  typeof value === 'string' && value !== '' ? value : fallback;

/** The pending `force_create_media_buy_arm` directive of a principal, marked consumed as it is read. */
async function takeDirective(db: SellerDb, principal: string): Promise<JsonObject | undefined> {
  const stored = await db.getFixture(principal, 'kit:directive', 'create_media_buy');
  if (stored === undefined || stored.consumed === true) return undefined;
  await db.putFixture(principal, 'kit:directive', 'create_media_buy', { ...stored, consumed: true });
  return stored;
}

/** The reference seller's tools, built only on the public createAdcpServer tool contract. */
export function sellerTools(deps: SellerToolDeps): AdcpToolDefinition[] {
  const { db, timings, fault, now } = deps;
  const seeded = async (principal: string, id: unknown): Promise<CatalogProduct | undefined> => {
    if (typeof id !== 'string') return undefined;
    const stored = (await db.getFixture(principal, 'product', id))?.product;
    return isJsonObject(stored) ? (stored as unknown as CatalogProduct) : undefined;
  };
  return [
    {
      name: 'get_products',
      description: 'Discover advertising products matching a brief and filters.',
      handler: async (args, ctx) => {
        fault('get_products', args, ctx.headers);
        await deps.beforeWork?.('get_products', args, ctx.signal);
        if (args.brief !== undefined && (typeof args.brief !== 'string' || args.brief.length > 10_000)) {
          throw invalid('brief must be a string of at most 10000 characters.', 'brief');
        }
        if (args.filters !== undefined && !isJsonObject(args.filters))
          throw invalid('filters must be an object.', 'filters');
        // An interim `working` update on an A2A stream (the CLI's progress line); nothing on MCP.
        await ctx.working('Ranking the catalog against the brief', { percentage: 50, step: 'ranking' });
        const products = [
          ...searchCatalog(args.brief, args.filters ?? {}),
          ...(await seededProducts(db, ctx.principal)),
        ];
        return {
          message: `Found ${products.length} product${products.length === 1 ? '' : 's'}`,
          products: products.map(productToWire),
          cache_scope: 'public',
        };
      },
    },
    {
      name: 'create_media_buy',
      description:
        'Create a media buy; answers submitted, then completes after approval (webhooks on push_notification_config).',
      handler: async (args, ctx) => {
        fault('create_media_buy', args, ctx.headers);
        // Replays and concurrent retries are the server's idempotency layer's (createAdcpServer).
        const key = typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined;
        checkFlight(args.start_time, args.end_time, now());
        if (!Array.isArray(args.packages) || args.packages.length === 0 || args.packages.length > MAX_ITEMS) {
          throw invalid(`packages must be an array of 1 to ${MAX_ITEMS} packages.`, 'packages');
        }
        let sandboxOnly = true;
        const fixtures = await Promise.all(
          args.packages.map((pkg) => seeded(ctx.principal, isJsonObject(pkg) ? pkg.product_id : undefined)),
        );
        const packages = args.packages.map((pkg, i) => {
          if (!isJsonObject(pkg)) throw invalid('each package must be an object.', `packages[${i}]`);
          const fixture = fixtures[i];
          if (fixture === undefined) sandboxOnly = false;
          const item = fixture ?? findProduct(pkg.product_id);
          if (item === undefined)
            throw adcpError('PRODUCT_NOT_FOUND', {
              message: 'Referenced product IDs are unknown.',
              field: `packages[${i}].product_id`,
            });
          const budget = pkg.budget;
          if (budget !== undefined && (typeof budget !== 'number' || !(budget >= 0 && budget <= MAX_BUDGET))) {
            throw invalid(`budget must be a number from 0 to ${MAX_BUDGET}.`, `packages[${i}].budget`);
          }
          const pricing =
            item.pricing_options.find((o) => o.pricing_option_id === pkg.pricing_option_id) ?? item.pricing_options[0];
          if (pricing === undefined) {
            throw new AdcpToolError('PRODUCT_UNAVAILABLE', 'The product has no pricing option.', {
              field: `packages[${i}].pricing_option_id`,
            });
          }
          return {
            package_id: `pkg_${i + 1}`,
            product_id: item.product_id,
            pricing_option_id: pricing.pricing_option_id,
            rate: pricing.rate,
            budget: typeof budget === 'number' ? budget : 0,
          };
        });
        // `[reject]` in the purchase order number (a free-text field of AdCP 3's request) fails the
        // media buy in review: a fault the demo and tests ask for.
        const poNumber = args.po_number === undefined ? undefined : shortString(args.po_number, 'po_number');
        const reject = typeof poNumber === 'string' && poNumber.includes('[reject]');
        const principal = ctx.principal;
        // comply_test_controller's force_create_media_buy_arm (the kit keeps the directive): the
        // next create of this principal answers that arm, once.
        const directive = await takeDirective(db, principal);
        if (directive?.arm === 'input-required') {
          throw new AdcpToolError('INVALID_REQUEST', text(directive.message, 'The seller needs more input.'), {
            recovery: 'correctable',
          });
        }
        const forcedSubmit = directive?.arm === 'submitted';
        // The buyer's key, hashed, names the media buy (security.md, rule 10, "thread-buyer-key"):
        // if this work is run again for the same key (its first run died), it rewrites the same
        // media buy instead of creating a second one.
        const newMediaBuyId = () =>
          key === undefined
            ? `mb_${randomUUID().slice(0, 8)}`
            : `mb_${createHash('sha256').update(`${principal}\u0000${key}`).digest('hex').slice(0, 16)}`;
        if (sandboxOnly && !reject && !forcedSubmit && args.push_notification_config === undefined) {
          // Sandbox fixtures need no review: confirmed at once, awaiting creatives (deterministic tests);
          // a buyer that registered a webhook gets the review flow and its webhooks.
          const mediaBuyId = newMediaBuyId();
          const body: JsonObject = {
            media_buy_id: mediaBuyId,
            media_buy_status: 'pending_creatives',
            confirmed_at: new Date(now()).toISOString(),
            revision: 1,
            packages,
          };
          await db.saveMediaBuy(principal, mediaBuyId, { ...body, status: 'pending_creatives' }, now());
          return { message: `Media buy ${mediaBuyId} confirmed (sandbox products)`, ...body };
        }
        const submitted = await ctx.submit(
          async (progress) => {
            await sleep(timings.workingAfterMs, progress.signal);
            await progress.working('Media buy under review', { percentage: 50, step: 'review' });
            await sleep(timings.completeAfterMs - timings.workingAfterMs, progress.signal);
            if (reject)
              throw new AdcpToolError('POLICY_VIOLATION', 'The media buy was rejected in review.', {
                recovery: 'correctable',
              });
            const mediaBuyId = newMediaBuyId();
            const body: JsonObject = {
              media_buy_id: mediaBuyId,
              confirmed_at: new Date(now()).toISOString(),
              revision: 1,
              packages,
            };
            await db.saveMediaBuy(principal, mediaBuyId, body, now());
            return { message: `Media buy ${mediaBuyId} approved`, ...body };
          },
          {
            message: forcedSubmit
              ? text(directive?.message, 'Media buy submitted for approval')
              : 'Media buy submitted for approval',
          },
        );
        await deps.afterEffect?.('create_media_buy', ctx.headers);
        return submitted;
      },
    },
    {
      name: 'get_media_buy_delivery',
      description: 'Delivery totals of media buys.',
      handler: async (args, ctx) => {
        fault('get_media_buy_delivery', args, ctx.headers);
        let buys = await db.listMediaBuys(ctx.principal);
        if (args.media_buy_ids !== undefined) {
          if (!Array.isArray(args.media_buy_ids) || args.media_buy_ids.length > MAX_ITEMS) {
            throw invalid(`media_buy_ids must be an array of at most ${MAX_ITEMS} ids.`, 'media_buy_ids');
          }
          const wanted = new Set(args.media_buy_ids);
          buys = buys.filter((b) => wanted.has(b.id));
          if (buys.length !== wanted.size)
            throw new AdcpToolError('MEDIA_BUY_NOT_FOUND', 'A referenced media buy was not found.', {
              field: 'media_buy_ids',
            });
        }
        const end = now();
        const simulations = await Promise.all(buys.map((b) => db.getFixture(ctx.principal, 'delivery', b.id)));
        const deliveries = buys.map((b, i) => {
          // Delivery simulated through comply_test_controller replaces the synthetic figures.
          const simulated = simulations[i];
          const hours = Math.max(0, (end - b.createdAt) / 3_600_000);
          const impressions =
            simulated === undefined
              ? Math.floor((1000 + unit(b.id) * 9000) * (1 + hours))
              : Number(simulated.impressions) || 0;
          const spend =
            simulated === undefined
              ? Math.round(impressions * 0.02 * 100) / 100
              : isJsonObject(simulated.reported_spend)
                ? Number(simulated.reported_spend.amount) || 0
                : 0;
          const clicks = simulated === undefined ? Math.floor(impressions * 0.004) : Number(simulated.clicks) || 0;
          const totals = { impressions, spend, clicks };
          const packages = Array.isArray(b.body.packages) ? b.body.packages.filter(isJsonObject) : [];
          const share = packages.length === 0 ? 0 : 1 / packages.length;
          const byPackage = packages.map((p) => ({
            package_id: String(p.package_id),
            impressions: Math.floor(impressions * share),
            spend: Math.round(spend * share * 100) / 100,
            pricing_model: 'cpm',
            rate: typeof p.rate === 'number' ? p.rate : 0,
            currency: 'USD',
          }));
          const status = typeof b.body.status === 'string' ? b.body.status : 'active';
          return { media_buy_id: b.id, status, totals, by_package: byPackage };
        });
        return {
          currency: 'USD',
          reporting_period: {
            start: new Date(Math.min(end, ...buys.map((b) => b.createdAt))).toISOString(),
            end: new Date(end).toISOString(),
          },
          media_buy_deliveries: deliveries,
        };
      },
    },
    {
      name: 'sync_creatives',
      description: 'Create or update creatives in the library.',
      handler: async (args, ctx) => {
        fault('sync_creatives', args, ctx.headers);
        if (!Array.isArray(args.creatives) || args.creatives.length === 0 || args.creatives.length > MAX_ITEMS) {
          throw invalid(`creatives must be an array of 1 to ${MAX_ITEMS} creatives.`, 'creatives');
        }
        const results: JsonObject[] = [];
        for (const [i, creative] of args.creatives.entries()) {
          if (!isJsonObject(creative)) throw invalid('each creative must be an object.', `creatives[${i}]`);
          const id = shortString(creative.creative_id, `creatives[${i}].creative_id`);
          // What list_creatives must show of each (name, status and dates are required there).
          const at = new Date(now()).toISOString();
          const body: JsonObject = {
            creative_id: id,
            name: typeof creative.name === 'string' && creative.name !== '' ? creative.name.slice(0, 256) : id,
            status: 'approved',
            created_date: at,
            updated_date: at,
          };
          if (isJsonObject(creative.format_id)) body.format_id = creative.format_id;
          const action = await db.upsertCreative(ctx.principal, id, body, now());
          results.push({ creative_id: id, action });
        }
        return { creatives: results };
      },
    },
    ...listTools({ db, fault }),
    ...kitTools(sellerKit(db, now), fault),
  ];
}
