// Package ids are unique across buys (decision 0316), and a product seeded through the test
// controller is a valid 3.1 product from the start, priced as its fixture says (decision 0317).
// Served by createAdcpServer, called with the official MCP client, every answer checked against
// the 3.1 response schemas (validateResponses: strict), over records in memory, in a real SQLite
// file and in PostgreSQL (when ADCP_TEST_PG_URL is set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { account, FORMAT, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

for (const store of KIT_STORES) {
  describe(`the kit's package ids and seeded pricing over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    let keys = 0;
    const key = () => `kit-packages-key-${String(++keys).padStart(6, '0')}`;
    const ok = async (name: string, args: Json) => {
      const answer = await served.call(name, args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const control = (scenario: string, params: Json) => served.call('comply_test_controller', { scenario, params });
    const buy = async (packages: Json[]) =>
      await ok('create_media_buy', {
        account,
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages,
        idempotency_key: key(),
      });
    const pkg = (creative_id?: string): Json => ({
      product_id: 'news_display',
      pricing_option_id: 'cpm_fixed',
      budget: 1000,
      ...(creative_id === undefined ? {} : { creative_assignments: [{ creative_id }] }),
    });

    before(async () => {
      served = await serveKit(
        (records) => createMediaBuyKit({ records, seller: { products: () => [kitProduct()] } }),
        store,
      );
    });
    after(() => served.close());

    it('gives no two buys the same package id, so a package names one buy', async () => {
      await ok('sync_creatives', {
        account,
        idempotency_key: key(),
        creatives: [
          { creative_id: 'cr_one', name: 'One', format_id: FORMAT, assets: {} },
          { creative_id: 'cr_two', name: 'Two', format_id: FORMAT, assets: {} },
        ],
      });
      const first = await buy([pkg('cr_one'), pkg()]);
      const second = await buy([pkg('cr_two')]);
      const idsOf = (b: Json) => (b.packages as Json[]).map((p) => p.package_id as string);
      const [a1, a2] = idsOf(first);
      const [b1] = idsOf(second);
      assert.equal(new Set([a1, a2, b1]).size, 3, JSON.stringify([a1, a2, b1]));
      // A package added later keeps to the rule.
      const added = await ok('update_media_buy', {
        account,
        media_buy_id: second.media_buy_id,
        new_packages: [pkg()],
        idempotency_key: key(),
      });
      const b2 = (added.affected_packages as Json[])[0]?.package_id as string;
      assert.ok(![a1, a2, b1].includes(b2), b2);
      // The first buy's first package names cr_one alone, not the second buy's creative.
      const listed = await ok('list_creatives', { account, filters: { assigned_to_packages: [a1] } });
      assert.deepEqual(
        (listed.creatives as Json[]).map((c) => c.creative_id),
        ['cr_one'],
      );
      // Another buy's package is no package of this buy.
      const other = await served.call('update_media_buy', {
        account,
        media_buy_id: first.media_buy_id,
        packages: [{ package_id: b1, budget: 10 }],
        idempotency_key: key(),
      });
      assert.equal(other.code, 'PACKAGE_NOT_FOUND');
    });

    it('refuses a seeded buy whose package id another buy holds', async () => {
      const seeded = await control('seed_media_buy', {
        media_buy_id: 'mb_seeded_one',
        fixture: { status: 'active', packages: [{ package_id: 'pkg_shared', budget: 100 }, { budget: 50 }] },
      });
      assert.equal(seeded.isError, false, JSON.stringify(seeded.body));
      const clash = await control('seed_media_buy', {
        media_buy_id: 'mb_seeded_two',
        fixture: { status: 'active', packages: [{ package_id: 'pkg_shared', budget: 100 }] },
      });
      assert.equal(clash.body.error, 'INVALID_PARAMS', JSON.stringify(clash.body));
      const listed = await ok('get_media_buys', { account, media_buy_ids: ['mb_seeded_one'] });
      const ids = (((listed.media_buys as Json[])[0] as Json).packages as Json[]).map((p) => p.package_id);
      assert.deepEqual(ids, ['pkg_shared', 'mb_seeded_one_pkg_2']);
      // The same buy seeded again is the same buy, not a clash with itself.
      const again = await control('seed_media_buy', {
        media_buy_id: 'mb_seeded_one',
        fixture: { status: 'active', packages: [{ package_id: 'pkg_shared', budget: 100 }, { budget: 50 }] },
      });
      assert.equal(again.body.previous_state, 'existing', JSON.stringify(again.body));
    });

    it('serves a product seeded without pricing options with a default the first seeded option replaces', async () => {
      const seeded = await control('seed_product', {
        product_id: 'bare',
        fixture: { delivery_type: 'non_guaranteed' },
      });
      assert.equal(seeded.isError, false, JSON.stringify(seeded.body));
      const options = async () => {
        const products = (await ok('get_products', { buying_mode: 'wholesale' })).products as Json[];
        const bare = products.find((p) => p.product_id === 'bare') as Json;
        return (bare.pricing_options as Json[]).map((o) => o.pricing_option_id);
      };
      // A valid 3.1 product (pricing_options has minItems 1: validateResponses is strict).
      assert.deepEqual(await options(), ['bare-cpm']);
      // Buyable with it meanwhile.
      await buy([{ product_id: 'bare', pricing_option_id: 'bare-cpm', budget: 100 }]);
      const priced = await control('seed_pricing_option', {
        product_id: 'bare',
        pricing_option_id: 'bare_usd',
        fixture: { pricing_model: 'cpm', currency: 'USD', fixed_price: 9 },
      });
      assert.equal(priced.isError, false, JSON.stringify(priced.body));
      await control('seed_pricing_option', {
        product_id: 'bare',
        pricing_option_id: 'bare_eur',
        fixture: { pricing_model: 'cpm', currency: 'EUR', rate: 8 },
      });
      assert.deepEqual(await options(), ['bare_usd', 'bare_eur']);
      const products = (await ok('get_products', { buying_mode: 'wholesale' })).products as Json[];
      const eur = ((products.find((p) => p.product_id === 'bare') as Json).pricing_options as Json[])[1] as Json;
      // The fixture's `rate` is the option's fixed price.
      assert.deepEqual([eur.fixed_price, eur.floor_price], [8, undefined]);
      // The flag that marks the default is the kit's own, never shown.
      assert.equal(JSON.stringify(products).includes('kit_default_pricing'), false);
    });
  });
}
