import { createHash } from 'node:crypto';
import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';
import { canonicalJson } from '../../webhooks/canonical-json.js';
import { AdcpToolError } from './tool-error.js';

/** A list request's page: how many items, and after which sort key (from the caller's cursor). */
export interface PageQuery {
  maxResults: number;
  /** The sort key of the last item the previous page returned; undefined on the first page. */
  after: string | undefined;
  /** The request's fingerprint, bound into every cursor this query hands out. */
  fingerprint: string;
}

/** `pagination` of a list answer (core/pagination-response.json). */
export interface PageInfo extends JsonObject {
  has_more: boolean;
  cursor?: string;
  total_count?: number;
}

const CURSOR_PREFIX = 'c1.';
const MAX_CURSOR_LENGTH = 2048;
/** Fields of a request that do not select items: the same query carries on with other values. */
const NOT_SELECTING = new Set([
  'pagination',
  'context',
  'ext',
  'idempotency_key',
  'adcp_version',
  'adcp_major_version',
]);

function invalid(message: string, field: string): AdcpToolError {
  return new AdcpToolError('INVALID_REQUEST', message, { field, recovery: 'correctable' });
}

/** What selects the items of a list request (everything but paging and envelope fields), hashed. */
function fingerprintOf(args: JsonObject): string {
  const selecting: JsonObject = {};
  for (const [key, value] of Object.entries(args)) if (!NOT_SELECTING.has(key)) selecting[key] = value;
  return createHash('sha256').update(canonicalJson(selecting)).digest('base64url').slice(0, 16);
}

function encodeCursor(after: string, fingerprint: string): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify({ a: after, q: fingerprint })).toString('base64url');
}

/**
 * Reads `pagination` (core/pagination-request.json) from a list request: `max_results` an integer
 * from 1 to `limit` (default 50, the schema's), `cursor` one this server handed out for the same
 * query. Anything else throws `INVALID_REQUEST` naming the field: a malformed or foreign cursor,
 * or one from a request with other filters, is never silently read as the first page.
 */
export function readPageQuery(
  args: JsonObject,
  options: { defaultMaxResults?: number; limit?: number } = {},
): PageQuery {
  const limit = options.limit ?? 100;
  const fingerprint = fingerprintOf(args);
  const page = args.pagination;
  if (page === undefined)
    return { maxResults: options.defaultMaxResults ?? Math.min(50, limit), after: undefined, fingerprint };
  if (!isJsonObject(page)) throw invalid('pagination must be an object.', 'pagination');
  const max = page.max_results ?? options.defaultMaxResults ?? Math.min(50, limit);
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > limit) {
    throw invalid(`pagination.max_results must be an integer from 1 to ${limit}.`, 'pagination.max_results');
  }
  if (page.cursor === undefined) return { maxResults: max, after: undefined, fingerprint };
  const cursor = page.cursor;
  const refused = invalid(
    'pagination.cursor is not a cursor this agent handed out for this query; start again without one.',
    'pagination.cursor',
  );
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !cursor.startsWith(CURSOR_PREFIX))
    throw refused;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw refused;
  }
  if (!isJsonObject(decoded) || typeof decoded.a !== 'string' || decoded.q !== fingerprint) throw refused;
  return { maxResults: max, after: decoded.a, fingerprint };
}

/**
 * One page of `items`, which must be sorted by `keyOf` (unique keys; ascending, or descending with
 * `order: 'desc'`): the items after the query's cursor, at most `maxResults` of them, and the
 * `pagination` block. `has_more` is true exactly when a cursor is given (the terminal page has
 * none); `total_count` is the whole set. Keyset paging: items inserted or removed between pages
 * neither repeat nor skip the others. A list sorted on another field pages soundly with a key that
 * sorts as the list does and ends in the item's id (`sortKey`).
 */
export function pageOf<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  query: PageQuery,
  order: 'asc' | 'desc' = 'asc',
): { items: T[]; pagination: PageInfo } {
  const after = query.after;
  const start = after === undefined ? 0 : firstAfter(items, keyOf, after, order);
  const slice = items.slice(start, start + query.maxResults);
  const hasMore = start + slice.length < items.length;
  const pagination: PageInfo = { has_more: hasMore, total_count: items.length };
  const last = slice[slice.length - 1];
  if (hasMore && last !== undefined) pagination.cursor = encodeCursor(keyOf(last), query.fingerprint);
  return { items: slice, pagination };
}

/**
 * A unique key that sorts items by `value`, then by `id` (both in the list's direction): the value
 * without NUL, a NUL (below every other character, so a shorter value sorts first), the id. The
 * first NUL splits it back, so two items with different ids never share a key.
 */
export function sortKey(value: string, id: string): string {
  return `${value.replaceAll('\u0000', '')}\u0000${id}`;
}

/** Sorts items by their `sortKey`-like keys in `order` (code-unit order, as `pageOf` compares them). */
export function sortByKey<T>(items: readonly T[], keyOf: (item: T) => string, order: 'asc' | 'desc' = 'asc'): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return items
    .map((item) => ({ item, key: keyOf(item) }))
    .sort((a, b) => (a.key < b.key ? -sign : a.key > b.key ? sign : 0))
    .map((entry) => entry.item);
}

/** Index of the first item whose key sorts after `after` in `order` (binary search over the sorted keys). */
function firstAfter<T>(items: readonly T[], keyOf: (item: T) => string, after: string, order: 'asc' | 'desc'): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const key = keyOf(items[mid]!);
    if (order === 'asc' ? key <= after : key >= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
