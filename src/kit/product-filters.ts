import type { JsonObject } from '../core/types.js';
import { isJsonObject, jsonObjects } from '../core/json-object.js';
import type { Product } from '../schemas/generated/adcp-3.1.js';

/**
 * The `get_products` filters (3.1 core/product-filters.json) the kit applies to every product, the
 * seller's and the seeded ones, from the product's own fields: `delivery_type`, `exclusivity`,
 * `channels`, `format_ids`, `is_fixed_price` and `pricing_currencies` (which also narrow the
 * pricing options returned, as the schema requires), `max_cpm`, `required_metrics` and
 * `required_vendor_metrics` (filter-not-fail). The others reach the seller's `products()` in
 * `ProductQuery.filters`: the seller applies them to its own products (decision 0254).
 */

const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined);

/** Every pricing option's rate: fixed price, else floor, else the guidance's median. */
function rateOf(option: JsonObject): number {
  for (const value of [option.fixed_price, option.floor_price]) if (typeof value === 'number') return value;
  const guidance = isJsonObject(option.price_guidance) ? option.price_guidance : {};
  return typeof guidance.p50 === 'number' ? guidance.p50 : 0;
}

/** A format id's identity: its agent (without a trailing slash) and its id. */
export function formatKey(format: JsonObject): string {
  const agent = typeof format.agent_url === 'string' ? format.agent_url.replace(/\/+$/, '') : '';
  return `${agent}\u0000${typeof format.id === 'string' ? format.id : ''}`;
}

/** Whether a declared vendor metric satisfies one `required_vendor_metrics` entry (its pins, all of them). */
function vendorMetricMatches(wanted: JsonObject, declared: JsonObject): boolean {
  if (wanted.metric_id !== undefined && wanted.metric_id !== declared.metric_id) return false;
  if (!isJsonObject(wanted.vendor)) return true;
  const vendor = isJsonObject(declared.vendor) ? declared.vendor : {};
  const domain = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : undefined);
  if (domain(wanted.vendor.domain) !== domain(vendor.domain)) return false;
  return wanted.vendor.brand_id === undefined || wanted.vendor.brand_id === vendor.brand_id;
}

/**
 * The product as the filters let it be listed (its pricing options narrowed by `is_fixed_price`
 * and `pricing_currencies`), or undefined when a filter excludes it. A product with fixed and
 * auction options matches both values of `is_fixed_price`.
 */
export function filterProduct(product: Product, filters: JsonObject): Product | undefined {
  const p = product as unknown as JsonObject;
  if (typeof filters.delivery_type === 'string' && p.delivery_type !== filters.delivery_type) return undefined;
  if (typeof filters.exclusivity === 'string' && (p.exclusivity ?? 'none') !== filters.exclusivity) return undefined;
  const channels = list(filters.channels);
  if (channels !== undefined && !(list(p.channels) ?? []).some((c) => channels.includes(c))) return undefined;
  if (Array.isArray(filters.format_ids)) {
    const wanted = new Set(jsonObjects(filters.format_ids).map(formatKey));
    if (!jsonObjects(p.format_ids).some((f) => wanted.has(formatKey(f)))) return undefined;
  }
  const reporting = isJsonObject(p.reporting_capabilities) ? p.reporting_capabilities : {};
  const metrics = list(filters.required_metrics);
  if (metrics !== undefined && !metrics.every((m) => (list(reporting.available_metrics) ?? []).includes(m))) {
    return undefined;
  }
  const vendorMetrics = list(filters.required_vendor_metrics);
  if (
    vendorMetrics !== undefined &&
    !jsonObjects(vendorMetrics).every((w) =>
      jsonObjects(reporting.vendor_metrics).some((d) => vendorMetricMatches(w, d)),
    )
  ) {
    return undefined;
  }
  const options = jsonObjects(p.pricing_options);
  if (typeof filters.max_cpm === 'number' && !options.some((o) => rateOf(o) <= (filters.max_cpm as number))) {
    return undefined;
  }
  const fixed = filters.is_fixed_price;
  const currencies = list(filters.pricing_currencies);
  if (typeof fixed !== 'boolean' && currencies === undefined) return product;
  const kept = options.filter(
    (o) =>
      (typeof fixed !== 'boolean' || (typeof o.fixed_price === 'number') === fixed) &&
      (currencies === undefined || currencies.includes(o.currency)),
  );
  if (kept.length === 0) return undefined;
  return (kept.length === options.length ? product : { ...p, pricing_options: kept }) as unknown as Product;
}
