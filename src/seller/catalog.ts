import type { JsonObject } from '../core/types.js';
import { DEFAULT_REPORTING_CAPABILITIES } from '../kit/controller.js';

/** One product of the reference seller's fixed catalog. */
export interface CatalogProduct {
  product_id: string;
  name: string;
  description: string;
  channels: string[];
  delivery_type: 'guaranteed' | 'non_guaranteed';
  format_ids: { agent_url: string; id: string }[];
  /**
   * 3.1 `pricing-options/cpm-option.json`: a guaranteed product sells at a `fixed_price`; an auction
   * one states its `floor_price` and the clearing prices it sees (`price_guidance`).
   */
  pricing_options: CatalogPricingOption[];
  /** Words a brief is matched against. */
  keywords: string[];
}

export interface CatalogPricingOption {
  pricing_option_id: string;
  pricing_model: 'cpm';
  currency: 'USD';
  fixed_price?: number;
  floor_price?: number;
  price_guidance?: { p25: number; p50: number; p75: number; p90: number };
}

const FORMAT_AGENT = 'https://creative.adcontextprotocol.org';

/** The CPM a pricing option names: its fixed price, else its floor. */
export function cpmOf(option: CatalogPricingOption): number {
  return option.fixed_price ?? option.floor_price ?? 0;
}

function product(
  id: string,
  name: string,
  channels: string[],
  delivery: CatalogProduct['delivery_type'],
  cpm: number,
  formats: string[],
  keywords: string[],
): CatalogProduct {
  return {
    product_id: id,
    name,
    description: `${name} (${channels.join(', ')}, ${delivery === 'guaranteed' ? 'guaranteed' : 'auction'}, $${cpm} CPM).`,
    channels,
    delivery_type: delivery,
    format_ids: formats.map((f) => ({ agent_url: FORMAT_AGENT, id: f })),
    pricing_options: [
      delivery === 'guaranteed'
        ? { pricing_option_id: `${id}-cpm`, pricing_model: 'cpm', currency: 'USD', fixed_price: cpm }
        : {
            pricing_option_id: `${id}-cpm`,
            pricing_model: 'cpm',
            currency: 'USD',
            floor_price: cpm,
            price_guidance: { p25: cpm, p50: cpm * 1.5, p75: cpm * 2, p90: cpm * 3 },
          },
    ],
    keywords,
  };
}

/** The deterministic catalog every reference seller serves. */
export const CATALOG: readonly CatalogProduct[] = [
  product(
    'ctv_premium_sports',
    'Premium CTV: live sports',
    ['ctv'],
    'guaranteed',
    42,
    ['video_30s'],
    ['ctv', 'tv', 'sports', 'premium', 'video', 'live'],
  ),
  product(
    'ctv_entertainment',
    'CTV entertainment run-of-network',
    ['ctv'],
    'non_guaranteed',
    24,
    ['video_15s', 'video_30s'],
    ['ctv', 'tv', 'entertainment', 'video', 'family'],
  ),
  product(
    'olv_pets',
    'Online video: pet owners',
    ['olv'],
    'non_guaranteed',
    14,
    ['video_15s'],
    ['video', 'pet', 'pets', 'dog', 'cat', 'food'],
  ),
  product(
    'display_news',
    'Display: news homepage takeover',
    ['display'],
    'guaranteed',
    18,
    ['display_300x250', 'display_728x90'],
    ['display', 'news', 'banner', 'homepage'],
  ),
  product(
    'display_ron',
    'Display run-of-network',
    ['display'],
    'non_guaranteed',
    4,
    ['display_300x250'],
    ['display', 'banner', 'reach', 'cheap'],
  ),
  product(
    'audio_podcasts',
    'Audio: top podcasts',
    ['podcast'],
    'guaranteed',
    20,
    ['audio_30s'],
    ['audio', 'podcast', 'podcasts', 'radio'],
  ),
  product(
    'dooh_transit',
    'Digital out-of-home: transit screens',
    ['dooh'],
    'guaranteed',
    9,
    ['dooh_landscape'],
    ['dooh', 'outdoor', 'transit', 'city'],
  ),
  product(
    'social_luxury',
    'Social video: luxury shoppers',
    ['social'],
    'non_guaranteed',
    11,
    ['video_15s'],
    ['social', 'luxury', 'auto', 'fashion', 'video'],
  ),
];

/** The publisher whose inventory the reference seller sells (a reserved example domain). */
export const PUBLISHER_DOMAIN = 'reference-seller.example';

/**
 * The wire shape of a product (the matching keywords stay internal), with what both 3.0 and 3.1
 * require of a product: `publisher_properties` and `reporting_capabilities` (core/product.json).
 */
export function productToWire(item: CatalogProduct): JsonObject {
  const { keywords: _keywords, ...wire } = item;
  return {
    ...(structuredClone(wire) as JsonObject),
    publisher_properties: [{ publisher_domain: PUBLISHER_DOMAIN, selection_type: 'all' }],
    reporting_capabilities: structuredClone(DEFAULT_REPORTING_CAPABILITIES),
  };
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
}

/**
 * The catalog filtered by `filters` (hard: channels, delivery_type, max_cpm, is_fixed_price) and ranked by the
 * brief (products sharing a word with it, most shared first; all of them when none does).
 */
export function searchCatalog(brief: string | undefined, filters: JsonObject): CatalogProduct[] {
  const channels = Array.isArray(filters.channels)
    ? filters.channels.filter((c): c is string => typeof c === 'string')
    : undefined;
  const delivery = typeof filters.delivery_type === 'string' ? filters.delivery_type : undefined;
  const maxCpm = typeof filters.max_cpm === 'number' ? filters.max_cpm : undefined;
  const fixed = typeof filters.is_fixed_price === 'boolean' ? filters.is_fixed_price : undefined;
  const kept = CATALOG.filter(
    (p) =>
      (channels === undefined || p.channels.some((c) => channels.includes(c))) &&
      (delivery === undefined || p.delivery_type === delivery) &&
      (maxCpm === undefined || p.pricing_options.some((o) => cpmOf(o) <= maxCpm)) &&
      (fixed === undefined || p.pricing_options.some((o) => (o.fixed_price !== undefined) === fixed)),
  );
  if (brief === undefined || brief.trim() === '') return kept;
  const terms = new Set(words(brief));
  const scored = kept
    .map((p) => ({ p, score: p.keywords.filter((k) => terms.has(k)).length }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.p.product_id.localeCompare(b.p.product_id));
  return scored.length > 0 ? scored.map((s) => s.p) : kept;
}

/** The product with this id, if any. */
export function findProduct(id: unknown): CatalogProduct | undefined {
  return typeof id === 'string' ? CATALOG.find((p) => p.product_id === id) : undefined;
}
