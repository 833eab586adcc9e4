// A sales agent on the media-buy kit: the seller brings its products, formats and one decision
// (guaranteed buys with a webhook wait for an IO signature); the kit brings the buy lifecycle,
// accounts, creatives, delivery, the spec's errors and comply_test_controller.
//   PORT=3000 KIT_DB=kit.db node --import tsx examples/sales-agent.ts
import { createMediaBuyKit, MemoryKitRecords, SqliteKitRecords, type MediaBuySeller } from 'adcp-wire/kit';
import { createAdcpServer } from 'adcp-wire/server';
import { MemoryIdempotencyStore } from 'adcp-wire/store';

const AGENT = 'https://creative.adcontextprotocol.org';
const formatId = (id: string) => ({ agent_url: AGENT, id });

/** A 3.1 product: one CPM pricing option, fixed for guaranteed delivery, floor and guidance for auctions. */
function product(id: string, name: string, channel: 'display' | 'olv' | 'ctv', cpm: number, guaranteed: boolean) {
  return {
    product_id: id,
    name,
    description: `${name}: ${guaranteed ? 'guaranteed' : 'auction'} ${channel}, $${cpm} CPM.`,
    publisher_properties: [{ publisher_domain: 'outdoor-news.example', selection_type: 'all' as const }],
    channels: [channel],
    delivery_type: guaranteed ? ('guaranteed' as const) : ('non_guaranteed' as const),
    format_ids: [formatId(channel === 'display' ? 'display_300x250' : 'video_30s')],
    pricing_options: [
      guaranteed
        ? { pricing_option_id: `${id}_cpm`, pricing_model: 'cpm' as const, currency: 'USD', fixed_price: cpm }
        : {
            pricing_option_id: `${id}_cpm`,
            pricing_model: 'cpm' as const,
            currency: 'USD',
            floor_price: cpm,
            price_guidance: { p25: cpm, p50: cpm * 1.4, p75: cpm * 1.8, p90: cpm * 2.5 },
          },
    ],
    reporting_capabilities: {
      available_reporting_frequencies: ['daily' as const],
      expected_delay_minutes: 240,
      timezone: 'UTC',
      supports_webhooks: false,
      available_metrics: ['impressions' as const, 'spend' as const, 'clicks' as const],
      date_range_support: 'date_range' as const,
    },
  };
}

const products = [
  product('homepage_takeover', 'Homepage takeover', 'display', 18, true),
  product('outdoor_preroll', 'Outdoor lifestyle pre-roll', 'olv', 26, true),
  product('display_ron', 'Display run of network', 'display', 4, false),
  product('video_ron', 'Video run of network', 'olv', 11, false),
];

/** A proposal: 60 % of the budget on the first product, 40 % on the second. */
const plan = (name: string, [first, second]: string[]) => ({
  name,
  allocations: [
    { product_id: first as string, allocation_percentage: 60 },
    { product_id: second as string, allocation_percentage: 40 },
  ],
});

const seller: MediaBuySeller = {
  // Briefs rank by shared words; filters (delivery type, channels, fixed price) are the kit's.
  products: ({ brief }) => {
    const words = new Set((brief ?? '').toLowerCase().split(/\W+/));
    const score = (p: (typeof products)[number]) =>
      p.name
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => words.has(w)).length;
    return [...products].sort((a, b) => score(b) - score(a));
  },
  // Two plans for every brief; the kit stores them, refines, finalizes and executes them.
  propose: () => [
    plan('Guaranteed video-led plan', ['outdoor_preroll', 'homepage_takeover']),
    plan('Auction reach plan', ['video_ron', 'display_ron']),
  ],
  formats: [
    { format_id: formatId('display_300x250'), name: 'Medium rectangle' },
    { format_id: formatId('video_30s'), name: '30-second video' },
  ],
  // Guaranteed buys whose buyer registered a webhook wait for the IO to be signed (2 s here).
  decide: (buy) =>
    buy.request.push_notification_config !== undefined &&
    buy.packages.some((p) => p.product.delivery_type === 'guaranteed')
      ? { kind: 'approve', afterMs: 2000 }
      : { kind: 'confirm' },
};

const kit = createMediaBuyKit({
  records: process.env.KIT_DB ? new SqliteKitRecords({ path: process.env.KIT_DB }) : new MemoryKitRecords(),
  seller,
});

const server = createAdcpServer({
  name: 'Example sales agent',
  tools: kit.tools,
  testController: { scenarios: kit.scenarios }, // a sandbox deployment: never for real traffic
  idempotency: { store: new MemoryIdempotencyStore() },
  webhooks: { allowInsecureUrls: true }, // a local demo; real buyers' webhooks are https
  capabilities: {
    ...kit.capabilities,
    specialisms: ['sales-guaranteed', 'sales-non-guaranteed'],
  },
});
const { mcpUrl, a2aUrl } = await server.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(JSON.stringify({ mcp: mcpUrl, a2a: a2aUrl }));
