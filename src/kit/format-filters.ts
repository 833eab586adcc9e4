import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import { adcpError } from '../server/tools/adcp-error.js';
import { formatKey } from './product-filters.js';

/**
 * The `list_creative_formats` filters (3.1 media-buy/list-creative-formats-request.json) over a
 * format's own definition (core/format.json): `format_ids` (agent and id), `name_search`,
 * `asset_types` (all of them), the pixel bounds over its renders (any render), `is_responsive`,
 * `wcag_level` (at least), `disclosure_positions` and `disclosure_persistence`, and
 * `input_format_ids` / `output_format_ids` (any). `publisher_domain` and `property_id` need the
 * publishers' catalogs, which the kit does not read: UNSUPPORTED_FEATURE naming the field
 * (decision 0253's rule, 0255).
 */

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
const WCAG = ['A', 'AA', 'AAA'];

/** Every asset type a format takes, its groups' members included. */
function assetTypes(format: JsonObject): Set<string> {
  const types = new Set<string>();
  for (const asset of jsonObjects(format.assets)) {
    if (typeof asset.asset_type === 'string') types.add(asset.asset_type);
    for (const member of jsonObjects(asset.assets))
      if (typeof member.asset_type === 'string') types.add(member.asset_type);
  }
  return types;
}

/** Each render's pixel dimensions (a render in inches or cm has none). */
function renders(format: JsonObject): JsonObject[] {
  return jsonObjects(format.renders)
    .map((r) => (isJsonObject(r.dimensions) ? r.dimensions : {}))
    .filter((d) => d.unit === undefined || d.unit === 'px');
}

const responsive = (d: JsonObject): boolean =>
  (isJsonObject(d.responsive) && (d.responsive.width === true || d.responsive.height === true)) ||
  (typeof d.width !== 'number' && typeof d.height !== 'number');

/** Whether a format passes the request's filters; throws UNSUPPORTED_FEATURE for one the kit cannot answer. */
export function formatPasses(format: JsonObject, args: JsonObject): boolean {
  for (const field of ['publisher_domain', 'property_id']) {
    if (args[field] !== undefined) {
      throw adcpError('UNSUPPORTED_FEATURE', {
        message: `This seller does not filter formats by ${field}.`,
        field,
      });
    }
  }
  const id = isJsonObject(format.format_id) ? format.format_id : {};
  if (Array.isArray(args.format_ids) && !jsonObjects(args.format_ids).some((f) => formatKey(f) === formatKey(id))) {
    return false;
  }
  if (typeof args.name_search === 'string') {
    const name = typeof format.name === 'string' ? format.name : '';
    if (!name.toLowerCase().includes(args.name_search.toLowerCase())) return false;
  }
  if (Array.isArray(args.asset_types)) {
    const types = assetTypes(format);
    if (!strings(args.asset_types).every((t) => types.has(t))) return false;
  }
  const dims = renders(format);
  const bound = (field: 'width' | 'height', limit: unknown, fits: (v: number, l: number) => boolean) =>
    typeof limit !== 'number' || dims.some((d) => typeof d[field] === 'number' && fits(d[field], limit));
  if (
    !bound('width', args.max_width, (v, l) => v <= l) ||
    !bound('height', args.max_height, (v, l) => v <= l) ||
    !bound('width', args.min_width, (v, l) => v >= l) ||
    !bound('height', args.min_height, (v, l) => v >= l)
  ) {
    return false;
  }
  if (typeof args.is_responsive === 'boolean' && dims.some(responsive) !== args.is_responsive) return false;
  if (typeof args.wcag_level === 'string') {
    const level = isJsonObject(format.accessibility) ? format.accessibility.wcag_level : undefined;
    if (WCAG.indexOf(String(level)) < WCAG.indexOf(args.wcag_level)) return false;
  }
  const capabilities = jsonObjects(format.disclosure_capabilities);
  if (Array.isArray(args.disclosure_positions)) {
    const positions = new Set(
      capabilities.length > 0 ? capabilities.map((c) => c.position) : strings(format.supported_disclosure_positions),
    );
    if (!strings(args.disclosure_positions).every((p) => positions.has(p))) return false;
  }
  if (Array.isArray(args.disclosure_persistence)) {
    const modes = new Set(capabilities.flatMap((c) => strings(c.persistence)));
    if (!strings(args.disclosure_persistence).every((m) => modes.has(m))) return false;
  }
  for (const field of ['input_format_ids', 'output_format_ids'] as const) {
    if (!Array.isArray(args[field])) continue;
    const own = new Set(jsonObjects(format[field]).map(formatKey));
    if (!jsonObjects(args[field]).some((f) => own.has(formatKey(f)))) return false;
  }
  return true;
}
