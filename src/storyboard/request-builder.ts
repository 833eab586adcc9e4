import type { AdcpClient } from '../client/index.js';
import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';

/**
 * The per-task request builder (docs/decisions/0225-storyboard-request-builder.md). Some steps
 * give only the envelope of a request (`push_notification_config`, `idempotency_key`,
 * `context`) and leave the rest to "the SDK's per-task request builder". This one fills ONLY the
 * top-level fields the request schema says are required and missing, never one the storyboard
 * wrote, and says where each came from:
 *
 * - `account`, `brand`: the first value the same storyboard writes in another step (its own
 *   identity for the run), else the suite's default brand kit (`test-kits/acme-outdoor.yaml`).
 * - `start_time`: `"asap"` (core/start-timing.json); `end_time`: 30 days from the first build of
 *   the storyboard run, the same for every step (a replay sends the same payload).
 * - `packages` (create_media_buy, when neither `packages` nor `proposal_id` is given): the first
 *   product of the agent's own `get_products` answer with a pricing option, on the step's
 *   connection, once per storyboard.
 */
export interface BuiltField {
  /** RFC 6901 pointer of the field the builder supplied. */
  pointer: string;
  /** Where its value came from, in words. */
  from: string;
}

export interface BuilderContext {
  /** The storyboard's document (for its own account and brand). */
  storyboard: JsonObject;
  /** The default brand kit of the suite, when it has one. */
  defaultKit: unknown;
  /** The step's connection, for the discovery a builder may need. */
  client: AdcpClient;
  timeoutMs: number;
  signal: AbortSignal;
  /** Per storyboard run: a discovery is made once. */
  cache: Map<string, unknown>;
}

/** The tasks the builder knows and the required top-level fields it can supply. */
const BUILDABLE: Record<string, readonly string[]> = {
  create_media_buy: ['account', 'brand', 'start_time', 'end_time', 'packages'],
};

export function hasRequestBuilder(task: string): boolean {
  return Object.hasOwn(BUILDABLE, task);
}

const REQUIRED = /must have required property '([^']+)'/;

/**
 * Fills the missing required top-level fields of `args` for `task` (a new object; `args` is not
 * changed). `missing` are the schema's complaints about `args`. Returns the request and what was
 * built, or `problem` when a field could not be supplied.
 */
export async function buildRequest(
  task: string,
  args: JsonObject,
  missing: readonly { pointer: string; message: string }[],
  ctx: BuilderContext,
): Promise<{ request: JsonObject; built: BuiltField[]; problem?: string }> {
  const can = BUILDABLE[task] ?? [];
  const request: JsonObject = { ...args };
  const built: BuiltField[] = [];
  const wanted = new Set<string>();
  for (const issue of missing) {
    const name = REQUIRED.exec(issue.message)?.[1];
    if (name !== undefined && (issue.pointer === '' || issue.pointer === `/${name}`)) wanted.add(name);
  }
  // create_media_buy: a buy with neither packages nor a proposal buys nothing.
  if (task === 'create_media_buy' && request['packages'] === undefined && request['proposal_id'] === undefined)
    wanted.add('packages');
  for (const name of can) {
    if (!wanted.has(name) || Object.hasOwn(request, name)) continue;
    if (name === 'account' || name === 'brand') {
      const own = firstWritten(ctx.storyboard, name);
      if (own !== undefined) {
        request[name] = own;
        built.push({ pointer: `/${name}`, from: `the storyboard's own ${name} (another step's sample_request)` });
        continue;
      }
      const domain = defaultBrandDomain(ctx.defaultKit);
      if (domain === undefined)
        return { request, built, problem: `no ${name} to use: the suite has no default brand kit` };
      request[name] = name === 'brand' ? { domain } : { brand: { domain }, operator: domain, sandbox: true };
      built.push({ pointer: `/${name}`, from: `the suite's default brand kit (${domain}), sandbox` });
    } else if (name === 'start_time') {
      request[name] = 'asap';
      built.push({ pointer: '/start_time', from: '"asap" (core/start-timing.json)' });
    } else if (name === 'end_time') {
      // One value per storyboard run: a replay must send the same payload (idempotency).
      let end = ctx.cache.get('end_time');
      if (typeof end !== 'string') {
        end = new Date(Date.now() + 30 * 86_400_000).toISOString();
        ctx.cache.set('end_time', end);
      }
      request[name] = end;
      built.push({ pointer: '/end_time', from: '30 days after the storyboard started (one value per run)' });
    } else if (name === 'packages') {
      const found = await discoverPackage(request, ctx);
      if (typeof found === 'string') return { request, built, problem: found };
      request[name] = [found.package];
      built.push({ pointer: '/packages', from: found.from });
    }
  }
  return { request, built };
}

/** The first value of `field` the storyboard writes at the top of a sample_request. */
function firstWritten(storyboard: JsonObject, field: string): unknown {
  const phases = Array.isArray(storyboard['phases']) ? storyboard['phases'].filter(isJsonObject) : [];
  for (const phase of phases) {
    for (const step of Array.isArray(phase['steps']) ? phase['steps'].filter(isJsonObject) : []) {
      const sample = step['sample_request'];
      if (!isJsonObject(sample) || !isJsonObject(sample[field])) continue;
      const value = sample[field];
      // Only literal values: a placeholder belongs to the step that captured it.
      if (!JSON.stringify(value).includes('$') && !JSON.stringify(value).includes('{{')) return value;
    }
  }
  return undefined;
}

function defaultBrandDomain(kit: unknown): string | undefined {
  if (!isJsonObject(kit) || !isJsonObject(kit['brand'])) return undefined;
  const house = kit['brand']['house'];
  return isJsonObject(house) && typeof house['domain'] === 'string' ? house['domain'] : undefined;
}

/** One package from the agent's own catalog: a product, its first pricing option, a budget. */
async function discoverPackage(
  request: JsonObject,
  ctx: BuilderContext,
): Promise<{ package: JsonObject; from: string } | string> {
  let answer = ctx.cache.get('get_products');
  if (answer === undefined) {
    const query: JsonObject = {
      buying_mode: 'brief',
      brief: 'Any available advertising product',
      ...(request['brand'] === undefined ? {} : { brand: request['brand'] }),
      ...(request['account'] === undefined ? {} : { account: request['account'] }),
    };
    try {
      const result = await ctx.client.call('get_products', query, {
        retry: false,
        timeoutMs: ctx.timeoutMs,
        signal: ctx.signal,
      });
      answer = result.status === 'completed' ? (result.data ?? null) : `get_products answered ${result.status}`;
    } catch (error) {
      answer = `get_products failed: ${(error as Error).message}`;
    }
    ctx.cache.set('get_products', answer);
  }
  if (typeof answer === 'string') return `packages: the discovery for them failed (${answer})`;
  const products = isJsonObject(answer) && Array.isArray(answer['products']) ? answer['products'] : [];
  for (const product of products) {
    if (!isJsonObject(product) || typeof product['product_id'] !== 'string') continue;
    const options = Array.isArray(product['pricing_options']) ? product['pricing_options'].filter(isJsonObject) : [];
    const option = options.find((o) => typeof o['pricing_option_id'] === 'string');
    if (option === undefined) continue;
    const min = typeof option['min_spend_per_package'] === 'number' ? option['min_spend_per_package'] : 0;
    const pkg: JsonObject = {
      product_id: product['product_id'],
      pricing_option_id: option['pricing_option_id'],
      budget: Math.max(1000, min),
    };
    const floor = typeof option['floor_price'] === 'number' ? option['floor_price'] : undefined;
    if (option['fixed_price'] === undefined && floor !== undefined) pkg['bid_price'] = Math.round(floor * 150) / 100;
    return {
      package: pkg,
      from: `the agent's get_products: product ${product['product_id']}, pricing option ${String(option['pricing_option_id'])}`,
    };
  }
  return "packages: the agent's get_products lists no product with a pricing option";
}

const DIRECTIVE = '$build_assets_from_format';

/**
 * `$build_assets_from_format` (storyboard-schema.yaml, Step `sample_request`, "Creative asset
 * expansion"): an `assets` object holding only the directive is replaced, before validation and
 * transport, by an asset map keyed by each required slot's `asset_id`, filled from the test kit
 * (`assets.images[]` meeting the slot's dimensions, `assets.click_url` for URL slots). The
 * directive's value (already substituted) is a `FormatId`, resolved against the formats a
 * `list_creative_formats` step captured (`$context.formats`). Changes `args` in place; returns
 * what it built, or why a required slot could not be filled (the step then fails with
 * `unresolved_substitution`, as the schema says, and nothing is sent).
 */
export function expandAssetDirectives(
  args: JsonObject,
  formats: unknown,
  kit: unknown,
): { built: BuiltField[]; problem?: string } {
  const built: BuiltField[] = [];
  const creatives = Array.isArray(args['creatives']) ? args['creatives'] : [];
  for (const [index, creative] of creatives.entries()) {
    if (!isJsonObject(creative) || !isJsonObject(creative['assets']) || !Object.hasOwn(creative['assets'], DIRECTIVE))
      continue;
    const ref = creative['assets'][DIRECTIVE];
    const known = Array.isArray(formats) ? formats.filter(isJsonObject) : [];
    const format = known.find((f) => sameFormatId(f['format_id'], ref));
    if (format === undefined)
      return {
        built,
        problem: `${DIRECTIVE}: ${JSON.stringify(ref)} is not among the formats a list_creative_formats step captured ($context.formats)`,
      };
    const slots = (Array.isArray(format['assets']) ? format['assets'] : []).filter(
      (slot): slot is JsonObject => isJsonObject(slot) && slot['required'] === true,
    );
    const assets: JsonObject = {};
    for (const slot of slots) {
      const id = slot['asset_id'] ?? slot['asset_group_id'];
      if (typeof id !== 'string') return { built, problem: `${DIRECTIVE}: a required slot has no asset_id` };
      const filled = fillSlot(slot, kit);
      if (filled === undefined)
        return {
          built,
          problem: `${DIRECTIVE}: the test kit has nothing for the required ${String(slot['asset_type'] ?? slot['item_type'])} slot ${id}${isJsonObject(slot['requirements']) ? ` (${JSON.stringify(slot['requirements'])})` : ''}`,
        };
      assets[id] = filled;
    }
    creative['assets'] = assets;
    built.push({
      pointer: `/creatives/${index}/assets`,
      from: `the required slots of format ${JSON.stringify(ref)} (${Object.keys(assets).join(', ') || 'none'}), filled from the test kit`,
    });
  }
  return { built };
}

function sameFormatId(a: unknown, b: unknown): boolean {
  return isJsonObject(a) && isJsonObject(b) && a['id'] === b['id'] && a['agent_url'] === b['agent_url'];
}

function fillSlot(slot: JsonObject, kit: unknown): JsonObject | undefined {
  const fixtures = isJsonObject(kit) && isJsonObject(kit['assets']) ? kit['assets'] : {};
  if (slot['asset_type'] === 'url')
    return typeof fixtures['click_url'] === 'string' ? { asset_type: 'url', url: fixtures['click_url'] } : undefined;
  if (slot['asset_type'] !== 'image') return undefined;
  const need = isJsonObject(slot['requirements']) ? slot['requirements'] : {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const images = Array.isArray(fixtures['images']) ? fixtures['images'].filter(isJsonObject) : [];
  const image = images.find((img) => {
    const w = num(img['width']);
    const h = num(img['height']);
    if (w === undefined || h === undefined || typeof img['url'] !== 'string') return false;
    return (
      w >= (num(need['min_width']) ?? 0) &&
      w <= (num(need['max_width']) ?? Infinity) &&
      h >= (num(need['min_height']) ?? 0) &&
      h <= (num(need['max_height']) ?? Infinity)
    );
  });
  return image === undefined
    ? undefined
    : { asset_type: 'image', url: image['url'], width: image['width'], height: image['height'] };
}
