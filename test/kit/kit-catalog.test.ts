// The media-buy kit's product filters, formats of seeded products and packages' targeting, as the
// official runner (@adcp/sdk 6.11) found them against `adcp serve` (issue 31): served by
// createAdcpServer, called with the official MCP client, every answer checked against the 3.1
// response schemas (validateResponses: strict).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { account, FORMAT, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

const product = (id: string, formats: Json[]) => kitProduct({ product_id: id, name: id, format_ids: formats });
const PRODUCTS = [
  product('news_display', [FORMAT]),
  product('sports_display', [FORMAT]),
  product('wide_display', [{ agent_url: 'https://creative.adcontextprotocol.org/', id: 'display_728x90' }]),
];
/** The official runner's capability reader (@adcp/sdk 6.11, test/peers/adcp-sdk). */
const theirCapabilities = createRequire(import.meta.url)(
  '../peers/adcp-sdk/node_modules/@adcp/sdk/dist/lib/utils/capabilities.js',
) as { parseCapabilitiesResponse(raw: unknown): unknown; resolveFeature(caps: unknown, feature: string): boolean };
/** A seed fixture a get_products answer can show: one pricing option, the seller's own format. */
const SEED_FIXTURE = { pricing_options: PRODUCTS[0]!.pricing_options, format_ids: [FORMAT] };
const OTHER_AGENT_FORMAT = { agent_url: 'https://compliance.adcontextprotocol.org', id: 'fixture_only_display' };

describe('the media-buy kit: product filters, formats of seeded products, package targeting', () => {
  let served: ServedKit;
  let keys = 0;
  before(async () => {
    served = await serveKit((records) =>
      createMediaBuyKit({
        records,
        seller: {
          products: () => PRODUCTS,
          formats: [
            { format_id: FORMAT, name: 'Medium rectangle' },
            { format_id: { agent_url: FORMAT.agent_url, id: 'display_728x90' }, name: 'Leaderboard' },
          ],
        },
      }),
    );
  });
  after(() => served.close());

  const call = async (name: string, args: Json) => {
    const { isError, body } = await served.call(name, args);
    assert.equal(isError, false, JSON.stringify(body));
    return body;
  };

  it('declares conversion tracking and audiences where the spec puts them and where the official runner reads them', async () => {
    const capabilities = await call('get_adcp_capabilities', {});
    const mediaBuy = capabilities.media_buy as Json;
    assert.deepEqual(mediaBuy.conversion_tracking, { multi_source_event_dedup: true });
    assert.equal(typeof mediaBuy.audience_targeting, 'object');
    const theirs = theirCapabilities.parseCapabilitiesResponse(capabilities);
    assert.equal(theirCapabilities.resolveFeature(theirs, 'conversion_tracking'), true);
    assert.equal(theirCapabilities.resolveFeature(theirs, 'audience_targeting'), true);
  });

  it('applies filters.format_ids (agent and id) to the products and to total_count', async () => {
    const found = await call('get_products', {
      buying_mode: 'wholesale',
      account,
      filters: { format_ids: [FORMAT] },
      pagination: { max_results: 1 },
    });
    assert.deepEqual(
      (found.products as Json[]).map((p) => p.product_id),
      ['news_display'],
    );
    assert.deepEqual(found.pagination, { ...(found.pagination as Json), has_more: true, total_count: 2 });
    // An agent URL with a trailing slash names the same agent.
    const wide = await call('get_products', {
      buying_mode: 'wholesale',
      account,
      filters: { format_ids: [{ agent_url: FORMAT.agent_url, id: 'display_728x90' }] },
    });
    assert.deepEqual(
      (wide.products as Json[]).map((p) => p.product_id),
      ['wide_display'],
    );
    const none = await call('get_products', {
      buying_mode: 'wholesale',
      account,
      filters: { format_ids: [{ agent_url: 'https://elsewhere.example', id: FORMAT.id }] },
    });
    assert.deepEqual(none.products, []);
  });

  it("resolves in list_creative_formats a format that only a seeded product's fixture names", async () => {
    const seeded = await call('comply_test_controller', {
      scenario: 'seed_product',
      params: { product_id: 'fixture_product', fixture: { format_ids: [OTHER_AGENT_FORMAT] } },
    });
    assert.equal(seeded.success, true);
    const listed = await call('list_creative_formats', { format_ids: [OTHER_AGENT_FORMAT] });
    assert.deepEqual(listed.formats, [{ format_id: OTHER_AGENT_FORMAT, name: OTHER_AGENT_FORMAT.id }]);
    // The seller's own definition still wins for a format it knows.
    const known = await call('list_creative_formats', { format_ids: [FORMAT] });
    assert.deepEqual(known.formats, [{ format_id: FORMAT, name: 'Medium rectangle' }]);
  });

  it('lists seeded products newest seed first, so an earlier fixture never answers for a later one', async () => {
    const seed = async (id: string) =>
      assert.equal(
        (
          await call('comply_test_controller', {
            scenario: 'seed_product',
            params: { product_id: id, fixture: SEED_FIXTURE },
          })
        ).success,
        true,
      );
    // The seller's format: the earlier test's fixture product (another format) stays out.
    const IN_FORMAT = { buying_mode: 'wholesale', account, filters: { format_ids: [FORMAT] } };
    const firstIds = async () =>
      ((await call('get_products', IN_FORMAT)).products as Json[])
        .map((p) => p.product_id)
        .filter((id) => typeof id === 'string' && id.startsWith('order_'));
    await seed('order_b');
    await seed('order_a');
    assert.deepEqual(await firstIds(), ['order_a', 'order_b']);
    // Seeded again with the same fixture (a storyboard run twice): the newest seed again.
    await seed('order_b');
    assert.deepEqual(await firstIds(), ['order_b', 'order_a']);
    const products = (await call('get_products', IN_FORMAT)).products as Json[];
    assert.equal(products[0]?.product_id, 'order_b', "seeded products come before the seller's own");
    assert.ok(
      products.every((p) => !('seeded_at' in p)),
      'the seed time is not shown',
    );
  });

  it("stores a package's targeting_overlay on create and replaces it whole on update", async () => {
    const first = { property_list: { agent_url: 'https://governance.example', list_id: 'allow_v1' } };
    const created = await call('create_media_buy', {
      account,
      brand: account.brand,
      start_time: 'asap',
      end_time: '2099-06-30T23:59:59Z',
      packages: [
        { product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 5000, targeting_overlay: first },
      ],
      idempotency_key: `kit-catalog-${++keys}-00000000`,
    });
    const pkg = (created.packages as Json[])[0] as Json;
    assert.deepEqual(pkg.targeting_overlay, first);
    const id = created.media_buy_id as string;
    const read = async () => {
      const buys = (await call('get_media_buys', { account, media_buy_ids: [id] })).media_buys as Json[];
      return ((buys[0] as Json).packages as Json[])[0]?.targeting_overlay;
    };
    assert.deepEqual(await read(), first);

    const second = { property_list: { agent_url: 'https://governance.example', list_id: 'allow_v2' } };
    const updated = await call('update_media_buy', {
      account,
      media_buy_id: id,
      packages: [{ package_id: pkg.package_id, targeting_overlay: second }],
      idempotency_key: `kit-catalog-${++keys}-00000000`,
    });
    assert.deepEqual(((updated.affected_packages as Json[])[0] as Json).targeting_overlay, second);
    assert.deepEqual(await read(), second);
  });
});
