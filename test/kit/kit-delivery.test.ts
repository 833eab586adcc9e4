// get_media_buy_delivery honours its period and breakdowns, and get_media_buys its history and
// snapshots, as far as the kit's records answer them (decisions 0318, 0319). Served by
// createAdcpServer, called with the official MCP client, every answer checked against the 3.1
// response schemas (validateResponses: strict), over records in memory, in a real SQLite file and
// in PostgreSQL (when ADCP_TEST_PG_URL is set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { account, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 86_400_000;

for (const store of KIT_STORES) {
  describe(`the kit's delivery period, history and snapshots over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    let clock = T0;
    let keys = 0;
    let buyId = '';
    let packageIds: string[] = [];
    const key = () => `kit-delivery-key-${String(++keys).padStart(6, '0')}`;
    const ok = async (name: string, args: Json) => {
      const answer = await served.call(name, args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const control = async (scenario: string, params: Json) => {
      const answer = await served.call('comply_test_controller', { scenario, params });
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const delivery = async (args: Json) =>
      await ok('get_media_buy_delivery', { account, media_buy_ids: [buyId], ...args });
    const only = (body: Json) => (body.media_buy_deliveries as Json[])[0] as Json;

    before(async () => {
      const product = kitProduct({
        reporting_capabilities: {
          ...(kitProduct().reporting_capabilities as Json),
          windowed_pull_granularities: ['daily'],
        },
      });
      served = await serveKit(
        (records) => createMediaBuyKit({ records, seller: { products: () => [product] }, now: () => clock }),
        store,
      );
      const pkg = { product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 1000 };
      const created = await ok('create_media_buy', {
        account,
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: [pkg, pkg],
        idempotency_key: key(),
      });
      buyId = created.media_buy_id as string;
      packageIds = (created.packages as Json[]).map((p) => p.package_id as string);
      // Two dated batches, then one undated on the seller's day (2026-03-03).
      const spend = (amount: number) => ({ amount, currency: 'USD' });
      await control('simulate_delivery', {
        media_buy_id: buyId,
        delivery_date: '2026-03-01',
        impressions: 1000,
        reported_spend: spend(10),
      });
      await control('simulate_delivery', {
        media_buy_id: buyId,
        delivery_date: '2026-03-02',
        impressions: 2000,
        clicks: 20,
        reported_spend: spend(20),
      });
      clock = T0 + 2 * DAY + 3_600_000;
      await control('simulate_delivery', { media_buy_id: buyId, impressions: 4000, reported_spend: spend(40) });
    });
    after(() => served.close());

    it('answers the lifetime without dates, and the days of [start_date, end_date) with them', async () => {
      const lifetime = await delivery({});
      assert.deepEqual(
        [only(lifetime).totals as Json].map((t) => [t.impressions, t.spend]),
        [[7000, 70]],
      );
      assert.deepEqual(lifetime.reporting_period, {
        start: new Date(T0).toISOString(),
        end: new Date(clock).toISOString(),
      });
      const one = await delivery({ start_date: '2026-03-02', end_date: '2026-03-03' });
      const totals = only(one).totals as Json;
      assert.deepEqual([totals.impressions, totals.clicks, totals.spend, totals.cpm], [2000, 20, 20, 10]);
      assert.deepEqual(one.reporting_period, { start: '2026-03-02T00:00:00.000Z', end: '2026-03-03T00:00:00.000Z' });
      assert.deepEqual(
        (only(one).by_package as Json[]).map((p) => [p.package_id, p.impressions, p.spend]),
        packageIds.map((id) => [id, 1000, 10]),
      );
      const since = only(await delivery({ start_date: '2026-03-02' })).totals as Json;
      assert.deepEqual([since.impressions, since.spend], [6000, 60]);
      const until = only(await delivery({ end_date: '2026-03-02' })).totals as Json;
      assert.deepEqual([until.impressions, until.spend], [1000, 10]);
      const none = only(await delivery({ start_date: '2026-04-01', end_date: '2026-05-01' })).totals as Json;
      assert.deepEqual([none.impressions, none.spend], [0, 0]);
    });

    it('refuses a period that ends before it starts, and dates that are not dates', async () => {
      for (const [args, code, field] of [
        [{ start_date: '2026-03-02', end_date: '2026-03-01' }, 'VALIDATION_ERROR', 'end_date'],
        [{ start_date: '2026-03-02', end_date: '2026-03-02' }, 'VALIDATION_ERROR', 'end_date'],
        [{ start_date: '2026-02-30' }, 'INVALID_REQUEST', 'start_date'],
        [{ end_date: '2026-3-1' }, 'INVALID_REQUEST', 'end_date'],
      ] as const) {
        const answer = await served.call('get_media_buy_delivery', { account, media_buy_ids: [buyId], ...args });
        assert.deepEqual([answer.code, answer.error?.field], [code, field], JSON.stringify(args));
      }
      const date = await served.call('comply_test_controller', {
        scenario: 'simulate_delivery',
        params: { media_buy_id: buyId, delivery_date: 'yesterday', impressions: 1 },
      });
      assert.equal(date.body.error, 'INVALID_PARAMS', JSON.stringify(date.body));
    });

    it('breaks each package down by day when include_package_daily_breakdown asks', async () => {
      const plain = only(await delivery({}));
      assert.equal((plain.by_package as Json[])[0]?.daily_breakdown, undefined);
      const daily = only(await delivery({ include_package_daily_breakdown: true }));
      for (const p of daily.by_package as Json[]) {
        assert.deepEqual(p.daily_breakdown, [
          { date: '2026-03-01', impressions: 500, spend: 5 },
          { date: '2026-03-02', impressions: 1000, spend: 10 },
          { date: '2026-03-03', impressions: 2000, spend: 20 },
        ]);
      }
      const bounded = only(
        await delivery({ start_date: '2026-03-03', end_date: '2026-03-04', include_package_daily_breakdown: true }),
      );
      assert.deepEqual(((bounded.by_package as Json[])[1] as Json).daily_breakdown, [
        { date: '2026-03-03', impressions: 2000, spend: 20 },
      ]);
    });

    it('slices the period into windows at a granularity the products declare, else UNSUPPORTED_GRANULARITY', async () => {
      const sliced = only(
        await delivery({
          start_date: '2026-03-01',
          end_date: '2026-03-03',
          time_granularity: 'daily',
          include_window_breakdown: true,
        }),
      );
      assert.deepEqual(
        (sliced.windows as Json[]).map((w) => [w.window_start, w.window_end, (w.totals as Json).impressions]),
        [
          ['2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z', 1000],
          ['2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z', 2000],
        ],
      );
      assert.deepEqual(
        (((sliced.windows as Json[])[1] as Json).by_package as Json[]).map((p) => [p.package_id, p.impressions]),
        packageIds.map((id) => [id, 1000]),
      );
      // Without include_window_breakdown, no windows.
      assert.equal(only(await delivery({ time_granularity: 'daily' })).windows, undefined);
      for (const granularity of ['monthly', 'hourly']) {
        const refused = await served.call('get_media_buy_delivery', {
          account,
          media_buy_ids: [buyId],
          time_granularity: granularity,
          include_window_breakdown: true,
        });
        assert.deepEqual([refused.code, refused.error?.field], ['UNSUPPORTED_GRANULARITY', 'time_granularity']);
      }
    });

    it('answers get_media_buys include_history most recent first, and include_snapshot per package', async () => {
      await ok('update_media_buy', {
        account,
        media_buy_id: buyId,
        packages: [{ package_id: packageIds[0], budget: 1500 }],
        idempotency_key: key(),
      });
      await ok('update_media_buy', { account, media_buy_id: buyId, paused: true, idempotency_key: key() });
      await control('force_media_buy_status', { media_buy_id: buyId, status: 'active' });
      const read = async (args: Json) =>
        ((await ok('get_media_buys', { account, media_buy_ids: [buyId], ...args })).media_buys as Json[])[0] as Json;
      assert.equal((await read({})).history, undefined);
      assert.equal((await read({ include_history: 0 })).history, undefined);
      const all = (await read({ include_history: 50 })).history as Json[];
      assert.deepEqual(
        all.map((h) => [h.revision, h.action, h.package_id]),
        [
          [4, 'resumed', undefined],
          [3, 'paused', undefined],
          [2, 'updated_budget', packageIds[0]],
          [1, 'created', undefined],
        ],
      );
      assert.match(String(all[2]?.summary), /from 1000 to 1500 USD/);
      assert.equal(all[0]?.actor, 'comply_test_controller');
      assert.equal(typeof all[3]?.actor, 'string');
      assert.deepEqual(
        ((await read({ include_history: 2 })).history as Json[]).map((h) => h.revision),
        [4, 3],
      );
      const bad = await served.call('get_media_buys', { account, media_buy_ids: [buyId], include_history: 1001 });
      assert.deepEqual([bad.code, bad.error?.field], ['INVALID_REQUEST', 'include_history']);

      const snapped = await read({ include_snapshot: true });
      for (const p of snapped.packages as Json[]) {
        const s = p.snapshot as Json;
        assert.deepEqual(
          [s.as_of, s.staleness_seconds, s.impressions, s.spend, s.clicks],
          [new Date(clock).toISOString(), 0, 3500, 35, 10],
        );
      }
      assert.equal(((await read({})).packages as Json[])[0]?.snapshot, undefined);
    });
  });
}
