import type { JsonObject } from '../core/types.js';

/** The buyer the demo and the tests speak for (reserved example domains). */
export const SAMPLE_ACCOUNT = {
  brand: { domain: 'acmeoutdoor.example' },
  operator: 'pinnacle-agency.example',
} as const satisfies JsonObject;
export const SAMPLE_BRAND = { domain: 'acmeoutdoor.example' } as const satisfies JsonObject;

/** A get_products request valid for 3.0 and 3.1 (`buying_mode` is required in both). */
export function productsRequest(brief?: string, extra: JsonObject = {}): JsonObject {
  return { buying_mode: 'brief', ...(brief === undefined ? {} : { brief }), ...extra };
}

/** A package of a create_media_buy request: the product's CPM pricing option and a budget. */
export function packageRequest(productId: string, budget: number): JsonObject {
  return { product_id: productId, pricing_option_id: `${productId}-cpm`, budget };
}

/**
 * A create_media_buy request valid for 3.0 and 3.1 (account, brand and flight are required);
 * `idempotency_key` is added by the client.
 */
export function mediaBuyRequest(packages: JsonObject[], extra: JsonObject = {}): JsonObject {
  return {
    account: SAMPLE_ACCOUNT,
    brand: SAMPLE_BRAND,
    start_time: 'asap',
    end_time: '2099-12-31T23:59:59Z',
    packages,
    ...extra,
  };
}

/** A sync_creatives request valid for 3.0 and 3.1 (a creative needs a name, a format and assets). */
export function creativesRequest(
  creatives: { creative_id: string; name?: string }[],
  extra: JsonObject = {},
): JsonObject {
  return {
    account: SAMPLE_ACCOUNT,
    creatives: creatives.map((c) => ({
      creative_id: c.creative_id,
      name: c.name ?? c.creative_id,
      format_id: { agent_url: 'https://creative.adcontextprotocol.org', id: 'video_30s' },
      assets: {},
    })),
    ...extra,
  };
}
