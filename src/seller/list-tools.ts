import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { pageOf, readPageQuery } from '../server/tools/paginate.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { AdcpToolDefinition } from '../server/types.js';
import type { SellerToolDeps } from './seller-tools.js';
import { validActions } from '../kit/media-buy-rules.js';

const MAX_IDS = 100;

/** A list of 1 to 100 strings, or undefined; anything else is INVALID_REQUEST on `field`. */
function idList(value: unknown, field: string): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > MAX_IDS ||
    !value.every((v) => typeof v === 'string')
  ) {
    throw new AdcpToolError('INVALID_REQUEST', `${field} must be a list of 1 to ${MAX_IDS} ids.`, { field });
  }
  return new Set(value);
}

/** The media buy status filter (`status_filter`: one status or a list), or undefined. */
function statusFilter(value: unknown): Set<string> | undefined {
  if (value === undefined) return undefined;
  return idList(typeof value === 'string' ? [value] : value, 'status_filter');
}

/**
 * `list_creatives` and `get_media_buys`: cursor-paged with `readPageQuery`/`pageOf` (stable order
 * by id, opaque cursors bound to the query, `max_results`, a terminal page without a cursor).
 */
export function listTools(deps: Pick<SellerToolDeps, 'db' | 'fault'>): AdcpToolDefinition[] {
  const { db, fault } = deps;
  return [
    {
      name: 'list_creatives',
      description: 'List creatives in the library (filters.creative_ids, filters.statuses), paged by cursor.',
      handler: async (args, ctx) => {
        fault('list_creatives', args, ctx.headers);
        const query = readPageQuery(args);
        const filters = isJsonObject(args.filters) ? args.filters : {};
        const ids = idList(filters.creative_ids, 'filters.creative_ids');
        const statuses = idList(filters.statuses, 'filters.statuses');
        const matching = (await db.allCreatives(ctx.principal))
          .filter((c) => ids === undefined || ids.has(String(c.creative_id)))
          .filter((c) => statuses === undefined || statuses.has(String(c.status)));
        const page = pageOf(matching, (c) => String(c.creative_id), query);
        const applied = [
          ...(ids === undefined ? [] : ['creative_ids']),
          ...(statuses === undefined ? [] : ['statuses']),
        ];
        return {
          query_summary: {
            total_matching: matching.length,
            returned: page.items.length,
            ...(applied.length === 0 ? {} : { filters_applied: applied }),
          },
          pagination: page.pagination,
          creatives: page.items,
        };
      },
    },
    {
      name: 'get_media_buys',
      description:
        'Media buys with their status (media_buy_ids, status_filter: active ones by default), paged by cursor.',
      handler: async (args, ctx) => {
        fault('get_media_buys', args, ctx.headers);
        const query = readPageQuery(args);
        const ids = idList(args.media_buy_ids, 'media_buy_ids');
        // get-media-buys-request.json: status_filter defaults to ["active"] when media_buy_ids is
        // omitted; with media_buy_ids no implicit filter applies.
        const statuses = statusFilter(args.status_filter) ?? (ids === undefined ? new Set(['active']) : undefined);
        const buys = (await db.listMediaBuys(ctx.principal))
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .filter((b) => ids === undefined || ids.has(b.id))
          .filter(
            (b) => statuses === undefined || statuses.has(typeof b.body.status === 'string' ? b.body.status : 'active'),
          );
        const page = pageOf(buys, (b) => b.id, query);
        return {
          media_buys: page.items.map((b) => mediaBuyToWire(b.id, b.body)),
          pagination: page.pagination,
        };
      },
    },
  ];
}

/** One media buy as get_media_buys shows it (core/media-buy.json's required fields). */
function mediaBuyToWire(id: string, body: JsonObject): JsonObject {
  const packages = Array.isArray(body.packages) ? body.packages.filter(isJsonObject) : [];
  const wire: JsonObject = {
    media_buy_id: id,
    status: typeof body.status === 'string' ? body.status : 'active',
    currency: 'USD',
    total_budget: packages.reduce((sum, p) => sum + (typeof p.budget === 'number' ? p.budget : 0), 0),
    packages: packages.map((p) => ({
      package_id: String(p.package_id),
      ...(typeof p.product_id === 'string' ? { product_id: p.product_id } : {}),
      ...(typeof p.budget === 'number' ? { budget: p.budget } : {}),
    })),
  };
  wire.confirmed_at = typeof body.confirmed_at === 'string' ? body.confirmed_at : null;
  wire.revision = typeof body.revision === 'number' ? body.revision : 1;
  if (typeof body.rejection_reason === 'string') wire.rejection_reason = body.rejection_reason;
  if (isJsonObject(body.cancellation)) wire.cancellation = body.cancellation;
  wire.valid_actions = validActions(wire.status as string);
  return wire;
}
