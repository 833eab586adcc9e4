// The media-buy kit's list tools honor every filter and sort of the 3.1 schemas (issue 31): a
// filter the kit can answer is applied, one it cannot is UNSUPPORTED_FEATURE naming it, never
// ignored. Served by createAdcpServer, called with the official MCP client, every answer checked
// against the 3.1 response schemas (validateResponses: strict), over records in memory, in a real
// SQLite file and in PostgreSQL (when ADCP_TEST_PG_URL is set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountIdOf, createMediaBuyKit } from '../../src/kit/index.js';
import {
  account as acme,
  FORMAT as RECT,
  KIT_STORES,
  kitProduct,
  serveKit,
  type Json,
  type ServedKit,
} from './kit-harness.js';

const AGENT = RECT.agent_url;
const BOARD = { agent_url: `${AGENT}/`, id: 'display_728x90' };
const SIZED = { agent_url: AGENT, id: 'display_static', width: 320, height: 50 };
const nova = { brand: { domain: 'novamotors.example' }, operator: 'pinnacle-agency.example' };
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

for (const store of KIT_STORES) {
  describe(`the kit's list tools over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    let clock = T0;
    let keys = 0;
    const key = () => `kit-lists-key-${String(++keys).padStart(6, '0')}`;
    let buyA = '';
    let buyB = '';

    const call = (name: string, args: Json) => served.call(name, args);
    const ok = async (name: string, args: Json) => {
      const answer = await call(name, args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const ids = async (args: Json) =>
      ((await ok('list_creatives', args)).creatives as Json[]).map((c) => c.creative_id as string);
    const sync = async (minutes: number, account: Json, creatives: Json[]) => {
      clock = T0 + minutes * 60_000;
      await ok('sync_creatives', {
        account,
        idempotency_key: key(),
        creatives: creatives.map((c) => ({ assets: {}, ...c })),
      });
    };
    const buy = async (creatives: string[][]) => {
      const created = await ok('create_media_buy', {
        account: acme,
        brand: acme.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: creatives.map((list) => ({
          product_id: 'news_display',
          pricing_option_id: 'cpm_fixed',
          budget: 1000,
          creative_assignments: list.map((creative_id) => ({ creative_id })),
        })),
        idempotency_key: key(),
      });
      return created.media_buy_id as string;
    };

    before(async () => {
      served = await serveKit(
        (records) => createMediaBuyKit({ records, seller: { products: () => [kitProduct()] }, now: () => clock }),
        store,
      );

      // The library: five creatives synced at different times (two in one call, at one instant).
      await sync(1, acme, [{ creative_id: 'cr_b', name: 'beta Banner', format_id: RECT, tags: ['q1', 'sale'] }]);
      await sync(2, nova, [{ creative_id: 'cr_e', name: 'Echo board', format_id: BOARD, tags: ['q1'] }]);
      await sync(3, acme, [
        { creative_id: 'cr_a', name: 'Alpha banner', format_id: RECT },
        { creative_id: 'cr_d', name: 'delta sized', format_id: SIZED, tags: ['sale'] },
      ]);
      await sync(4, acme, [{ creative_id: 'cr_c', name: 'Charlie board', format_id: BOARD }]);
      // cr_b re-synced: updated later, created as before.
      await sync(5, acme, [{ creative_id: 'cr_b', name: 'beta Banner', format_id: RECT, tags: ['q1', 'sale'] }]);
      clock = T0 + 6 * 60_000;
      // Buy A: cr_a twice (two packages) and cr_c once; buy B (canceled) assigned cr_e, now released.
      buyA = await buy([['cr_a', 'cr_c'], ['cr_a']]);
      buyB = await buy([['cr_e']]);
      await ok('update_media_buy', { account: acme, media_buy_id: buyB, canceled: true, idempotency_key: key() });
    });
    after(() => served.close());

    it('lists newest created first by default and says so in query_summary', async () => {
      const body = await ok('list_creatives', { account: acme });
      // cr_a and cr_d were created at one instant: the tie goes by creative_id, in the sort's direction.
      assert.deepEqual(
        (body.creatives as Json[]).map((c) => c.creative_id),
        ['cr_c', 'cr_d', 'cr_a', 'cr_e', 'cr_b'],
      );
      assert.deepEqual(body.query_summary, {
        total_matching: 5,
        returned: 5,
        sort_applied: { field: 'created_date', direction: 'desc' },
      });
      const a = (body.creatives as Json[]).find((c) => c.creative_id === 'cr_a') as Json;
      assert.deepEqual(a.assignments, { assignment_count: 2 });
      assert.equal(a.kit_account_id, undefined);
      const b = (body.creatives as Json[]).find((c) => c.creative_id === 'cr_b') as Json;
      assert.deepEqual([b.tags, b.created_date, b.updated_date], [['q1', 'sale'], at(1), at(5)]);
    });

    it('sorts by every field of the enum, both directions, ties by creative_id', async () => {
      const expected: Record<string, string[]> = {
        created_date: ['cr_b', 'cr_e', 'cr_a', 'cr_d', 'cr_c'],
        updated_date: ['cr_e', 'cr_a', 'cr_d', 'cr_c', 'cr_b'],
        name: ['cr_a', 'cr_b', 'cr_c', 'cr_d', 'cr_e'],
        status: ['cr_a', 'cr_b', 'cr_c', 'cr_d', 'cr_e'],
        // cr_e's only assignment was released by the cancel: 0, like cr_b and cr_d.
        assignment_count: ['cr_b', 'cr_d', 'cr_e', 'cr_c', 'cr_a'],
      };
      for (const [field, asc] of Object.entries(expected)) {
        const up = await ok('list_creatives', { sort: { field, direction: 'asc' } });
        assert.deepEqual(
          (up.creatives as Json[]).map((c) => c.creative_id),
          asc,
          `${field} asc`,
        );
        assert.deepEqual((up.query_summary as Json).sort_applied, { field, direction: 'asc' });
        assert.deepEqual(await ids({ sort: { field, direction: 'desc' } }), [...asc].reverse(), `${field} desc`);
      }
      assert.deepEqual(await ids({ sort: { direction: 'asc' } }), expected.created_date);
    });

    it('pages under any sort without repeats or skips, even when the library changes between pages', async () => {
      for (const sort of [
        { field: 'name', direction: 'asc' },
        { field: 'assignment_count', direction: 'desc' },
        { field: 'created_date', direction: 'desc' },
      ]) {
        const whole = await ids({ sort });
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 10; i += 1) {
          const body = await ok('list_creatives', {
            sort,
            pagination: { max_results: 2, ...(cursor ? { cursor } : {}) },
          });
          seen.push(...(body.creatives as Json[]).map((c) => c.creative_id as string));
          cursor = (body.pagination as Json).cursor as string | undefined;
          if (cursor === undefined) break;
        }
        assert.deepEqual(seen, whole, JSON.stringify(sort));
      }
      // A cursor of one sort is refused under another: it binds the query.
      const first = await ok('list_creatives', { sort: { field: 'name' }, pagination: { max_results: 2 } });
      const cursor = (first.pagination as Json).cursor as string;
      const other = await call('list_creatives', { sort: { field: 'status' }, pagination: { max_results: 2, cursor } });
      assert.equal(other.error?.code, 'INVALID_REQUEST');
      // Newest first, page 1 read; a creative synced meanwhile sorts before the cursor and is not repeated.
      const page1 = await ok('list_creatives', { pagination: { max_results: 2 } });
      await sync(7, acme, [{ creative_id: 'cr_0', name: 'Zero', format_id: RECT }]);
      const page2 = await ok('list_creatives', {
        pagination: { max_results: 2, cursor: (page1.pagination as Json).cursor },
      });
      assert.deepEqual(
        [...(page1.creatives as Json[]), ...(page2.creatives as Json[])].map((c) => c.creative_id),
        ['cr_c', 'cr_d', 'cr_a', 'cr_e'],
      );
      await ok('comply_test_controller', {
        scenario: 'force_creative_status',
        params: { creative_id: 'cr_0', status: 'archived' },
      });
    });

    it('applies every filter it can answer and names them in filters_applied', async () => {
      const cases: [Json, string[]][] = [
        [{ format_ids: [RECT] }, ['cr_a', 'cr_b']],
        // A trailing slash on the agent is the same agent; a sized filter matches only that variant.
        [{ format_ids: [{ agent_url: AGENT, id: 'display_728x90' }] }, ['cr_c', 'cr_e']],
        [{ format_ids: [SIZED] }, ['cr_d']],
        [{ format_ids: [{ ...SIZED, width: 300, height: 250 }] }, []],
        [{ format_ids: [{ ...RECT, agent_url: 'https://elsewhere.example' }] }, []],
        [{ name_contains: 'BANNER' }, ['cr_a', 'cr_b']],
        [{ creative_ids: ['cr_a', 'cr_e', 'nope'] }, ['cr_a', 'cr_e']],
        [{ statuses: ['approved'] }, ['cr_a', 'cr_b', 'cr_c', 'cr_d', 'cr_e']],
        [{ created_after: at(2) }, ['cr_a', 'cr_c', 'cr_d']],
        [{ created_before: at(2) }, ['cr_b']],
        [{ updated_after: at(4) }, ['cr_b']],
        [{ updated_before: at(4), created_after: at(1) }, ['cr_a', 'cr_d', 'cr_e']],
        [{ tags: ['q1', 'sale'] }, ['cr_b']],
        [{ tags_any: ['q1', 'sale'] }, ['cr_b', 'cr_d', 'cr_e']],
        [{ media_buy_ids: [buyA] }, ['cr_a', 'cr_c']],
        // A canceled buy released its assignments.
        [{ media_buy_ids: [buyB] }, []],
        [{ assigned_to_packages: [`${buyA}_pkg_2`] }, ['cr_a']],
        [{ unassigned: true }, ['cr_b', 'cr_d', 'cr_e']],
        [{ unassigned: false }, ['cr_a', 'cr_c']],
        [{ accounts: [nova] }, ['cr_e']],
        [{ accounts: [{ account_id: accountIdOf(acme) }] }, ['cr_a', 'cr_b', 'cr_c', 'cr_d']],
        // Synced 3.1 creatives carry no concept and no DCO variables.
        [{ concept_ids: ['concept_holiday'] }, []],
        [{ has_variables: true }, []],
        [{ has_variables: false }, ['cr_a', 'cr_b', 'cr_c', 'cr_d', 'cr_e']],
      ];
      for (const [filters, expected] of cases) {
        const body = await ok('list_creatives', { filters, sort: { field: 'name', direction: 'asc' } });
        assert.deepEqual(
          (body.creatives as Json[]).map((c) => c.creative_id),
          expected,
          JSON.stringify(filters),
        );
        assert.deepEqual((body.query_summary as Json).filters_applied, Object.keys(filters), JSON.stringify(filters));
        assert.equal((body.query_summary as Json).total_matching, expected.length);
      }
    });

    it('lists archived creatives only when a status filter asks for them', async () => {
      assert.equal((await ids({})).includes('cr_0'), false);
      assert.deepEqual(await ids({ filters: { statuses: ['archived'] } }), ['cr_0']);
      assert.deepEqual(await ids({ filters: { statuses: ['archived', 'approved'], name_contains: 'zero' } }), ['cr_0']);
    });

    it('refuses a filter it cannot answer with UNSUPPORTED_FEATURE naming it, never ignoring it', async () => {
      for (const [filters, field] of [
        [{ has_served: true }, 'filters.has_served'],
        [{ statuses: ['approved'], has_served: false }, 'filters.has_served'],
        [{ ext: { gam: { order_id: '1' } } }, 'filters.ext'],
        [{ format_kinds: ['display'] }, 'filters.format_kinds'],
      ] as const) {
        const answer = await call('list_creatives', { filters });
        assert.equal(answer.isError, true, JSON.stringify(filters));
        assert.deepEqual([answer.error?.code, answer.error?.field], ['UNSUPPORTED_FEATURE', field]);
      }
      // The snapshot is a courtesy the kit cannot give: said per creative, not refused.
      const body = await ok('list_creatives', { include_snapshot: true, include_assignments: false });
      const first = (body.creatives as Json[])[0] as Json;
      assert.equal(first.snapshot_unavailable_reason, 'SNAPSHOT_UNSUPPORTED');
      assert.equal(first.assignments, undefined);
    });

    it('shapes each creative to fields and the include flags it can answer (decision 0312)', async () => {
      const listed = async (args: Json) =>
        Object.fromEntries(
          (
            (await ok('list_creatives', { filters: { creative_ids: ['cr_a', 'cr_b'] }, ...args })).creatives as Json[]
          ).map((c) => [c.creative_id as string, c]),
        );
      const keys = (c: Json | undefined) => Object.keys(c ?? {}).sort();
      const required = ['created_date', 'creative_id', 'format_id', 'name', 'status', 'updated_date'];
      // Only the fields asked for, and always what the response schema requires of a creative.
      let shown = await listed({ fields: ['name'] });
      assert.deepEqual([keys(shown.cr_a), keys(shown.cr_b)], [required, required]);
      shown = await listed({ fields: ['creative_id', 'tags', 'assignments'] });
      assert.deepEqual(keys(shown.cr_b), [...required, 'assignments', 'tags'].sort());
      assert.deepEqual(shown.cr_a?.assignments, { assignment_count: 2 });
      // fields narrows what the include flags add: the snapshot only when both ask for it.
      shown = await listed({ fields: ['status'], include_snapshot: true });
      assert.deepEqual(keys(shown.cr_a), required);
      shown = await listed({ fields: ['snapshot'], include_snapshot: true });
      assert.equal(shown.cr_a?.snapshot_unavailable_reason, 'SNAPSHOT_UNSUPPORTED');
      // DCO variables: synced 3.1 creatives declare none, said only when asked for.
      shown = await listed({});
      assert.equal(shown.cr_a?.variables, undefined);
      shown = await listed({ include_variables: true });
      assert.deepEqual([shown.cr_a?.variables, shown.cr_b?.variables], [[], []]);
      shown = await listed({ include_variables: true, fields: ['name'] });
      assert.equal(shown.cr_a?.variables, undefined);
      // What the kit keeps no record of is omitted, never invented.
      shown = await listed({ include_items: true, include_purged: true, include_webhook_activity: true });
      assert.deepEqual(keys(shown.cr_a), [...required, 'assignments'].sort());
    });
  });
}

describe("the kit's get_products: every product once across pages, filters from the product's own fields", () => {
  const MIXED = kitProduct({
    product_id: 'mixed_display',
    name: 'Mixed display',
    exclusivity: 'exclusive',
    pricing_options: [
      { pricing_option_id: 'cpm_fixed', pricing_model: 'cpm', currency: 'USD', fixed_price: 10 },
      { pricing_option_id: 'cpm_auction', pricing_model: 'cpm', currency: 'EUR', floor_price: 5 },
    ],
    reporting_capabilities: {
      ...(kitProduct().reporting_capabilities as unknown as Json),
      available_metrics: ['impressions', 'spend', 'clicks', 'completed_views'],
      vendor_metrics: [{ vendor: { domain: 'attentionvendor.example' }, metric_id: 'attention_score' }],
    },
  });
  let served: ServedKit;
  before(async () => {
    served = await serveKit((records) =>
      createMediaBuyKit({ records, seller: { products: () => [kitProduct(), MIXED] } }),
    );
  });
  after(() => served.close());
  const ok = async (name: string, args: Json) => {
    const answer = await served.call(name, args);
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    return answer.body;
  };
  const productIds = async (filters: Json) =>
    ((await ok('get_products', { buying_mode: 'wholesale', filters })).products as Json[]).map((p) => p.product_id);

  it("pages seeded products (newest seed first) then the seller's own, each exactly once", async () => {
    for (const id of ['seeded_z', 'seeded_a']) {
      const fixture = { pricing_options: kitProduct().pricing_options, format_ids: [RECT] };
      await ok('comply_test_controller', { scenario: 'seed_product', params: { product_id: id, fixture } });
    }
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i += 1) {
      const body = await ok('get_products', {
        buying_mode: 'wholesale',
        pagination: { max_results: 1, ...(cursor ? { cursor } : {}) },
      });
      seen.push(...(body.products as Json[]).map((p) => p.product_id));
      cursor = (body.pagination as Json).cursor as string | undefined;
      if (cursor === undefined) break;
    }
    assert.deepEqual(seen, ['seeded_a', 'seeded_z', 'news_display', 'mixed_display']);
  });

  it('narrows pricing options to is_fixed_price and pricing_currencies, and applies the required_* filters', async () => {
    const auction = (await ok('get_products', { buying_mode: 'wholesale', filters: { is_fixed_price: false } }))
      .products as Json[];
    // A product with fixed and auction options matches both values, with only the matching options.
    assert.deepEqual(
      auction.map((p) => [p.product_id, (p.pricing_options as Json[]).map((o) => o.pricing_option_id)]),
      [['mixed_display', ['cpm_auction']]],
    );
    const fixedEur = await productIds({ is_fixed_price: true, pricing_currencies: ['EUR'] });
    assert.deepEqual(fixedEur, []);
    const usd = (await ok('get_products', { buying_mode: 'wholesale', filters: { pricing_currencies: ['USD'] } }))
      .products as Json[];
    assert.deepEqual(
      usd.filter((p) => p.product_id === 'mixed_display').map((p) => (p.pricing_options as Json[]).length),
      [1],
    );
    assert.deepEqual(await productIds({ required_metrics: ['clicks', 'completed_views'] }), ['mixed_display']);
    assert.deepEqual(await productIds({ exclusivity: 'exclusive' }), ['mixed_display']);
    assert.deepEqual(
      await productIds({ required_vendor_metrics: [{ vendor: { domain: 'attentionvendor.example' } }] }),
      ['mixed_display'],
    );
    assert.deepEqual(
      await productIds({
        required_vendor_metrics: [{ vendor: { domain: 'attentionvendor.example' }, metric_id: 'x' }],
      }),
      [],
    );
  });
});

describe("the kit's get_products: a filter the kit does not apply never fails discovery", () => {
  it('answers products for geography, dates and budget, and hands those filters to the seller', async () => {
    const seen: Json[] = [];
    const kit = await serveKit((records) =>
      createMediaBuyKit({ records, seller: { products: ({ filters }) => (seen.push(filters), [kitProduct()]) } }),
    );
    try {
      const filters = {
        countries: ['US'],
        start_date: '2027-01-01',
        end_date: '2027-01-31',
        budget_range: { min: 1000, currency: 'USD' },
        channels: ['display'],
      };
      const answer = await kit.call('get_products', { buying_mode: 'wholesale', filters });
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      assert.equal(answer.body.errors, undefined);
      assert.deepEqual(
        (answer.body.products as Json[]).map((p) => p.product_id),
        ['news_display'],
      );
      assert.deepEqual(seen, [filters]);
    } finally {
      await kit.close();
    }
  });
});

describe("the kit's list_creative_formats and get_media_buy_delivery filters", () => {
  const image = (id: string) => ({ item_type: 'individual', asset_id: id, asset_type: 'image', required: true });
  const text = (id: string) => ({ item_type: 'individual', asset_id: id, asset_type: 'text', required: true });
  const FORMATS = [
    {
      format_id: { agent_url: AGENT, id: 'display_728x90' },
      name: 'Leaderboard',
      assets: [image('banner')],
      renders: [{ role: 'primary', dimensions: { width: 728, height: 90 } }],
      accessibility: { wcag_level: 'AA' },
      supported_disclosure_positions: ['footer'],
    },
    {
      format_id: RECT,
      name: 'Medium rectangle',
      assets: [image('banner'), text('headline')],
      renders: [{ role: 'primary', dimensions: { width: 300, height: 250 } }],
    },
    {
      format_id: { agent_url: AGENT, id: 'native_fluid' },
      name: 'Native fluid',
      assets: [text('headline')],
      renders: [{ role: 'primary', dimensions: { min_width: 200, responsive: { width: true, height: false } } }],
      accessibility: { wcag_level: 'AAA' },
    },
    // Another agent's format with an id the seller also defines: a different format.
    { format_id: { agent_url: 'https://other-agent.example', id: 'display_300x250' }, name: 'Their rectangle' },
  ];
  let served: ServedKit;
  let keys = 0;
  before(async () => {
    served = await serveKit((records) =>
      createMediaBuyKit({ records, seller: { products: () => [kitProduct()], formats: FORMATS as never } }),
    );
  });
  after(() => served.close());
  const listed = async (args: Json) => {
    const answer = await served.call('list_creative_formats', args);
    assert.equal(answer.isError, false, JSON.stringify(answer.body));
    return (answer.body.formats as Json[]).map(
      (f) => `${String((f.format_id as Json).agent_url)}|${String((f.format_id as Json).id)}`,
    );
  };
  const ours = (id: string) => `${AGENT}|${id}`;

  it('applies the format filters a definition answers, by agent and id, and pages by id', async () => {
    assert.deepEqual(await listed({}), [
      ours('display_300x250'),
      'https://other-agent.example|display_300x250',
      ours('display_728x90'),
      ours('native_fluid'),
    ]);
    assert.deepEqual(await listed({ format_ids: [RECT] }), [ours('display_300x250')]);
    assert.deepEqual(await listed({ format_ids: [{ agent_url: `${AGENT}/`, id: 'display_728x90' }] }), [
      ours('display_728x90'),
    ]);
    assert.deepEqual(await listed({ asset_types: ['image', 'text'] }), [ours('display_300x250')]);
    assert.deepEqual(await listed({ max_width: 300 }), [ours('display_300x250')]);
    assert.deepEqual(await listed({ min_height: 90, max_height: 100 }), [ours('display_728x90')]);
    assert.deepEqual(await listed({ is_responsive: true }), [ours('native_fluid')]);
    assert.deepEqual(await listed({ wcag_level: 'AA' }), [ours('display_728x90'), ours('native_fluid')]);
    assert.deepEqual(await listed({ disclosure_positions: ['footer'] }), [ours('display_728x90')]);
    assert.deepEqual(await listed({ name_search: 'RECTANGLE' }), [
      ours('display_300x250'),
      'https://other-agent.example|display_300x250',
    ]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i += 1) {
      const body = (
        await served.call('list_creative_formats', { pagination: { max_results: 1, ...(cursor ? { cursor } : {}) } })
      ).body;
      seen.push(...(body.formats as Json[]).map((f) => (f.format_id as Json).id as string));
      cursor = (body.pagination as Json).cursor as string | undefined;
      if (cursor === undefined) break;
    }
    assert.deepEqual(seen, ['display_300x250', 'display_300x250', 'display_728x90', 'native_fluid']);
    const refused = await served.call('list_creative_formats', { publisher_domain: 'news.example' });
    assert.deepEqual([refused.code, refused.error?.field], ['UNSUPPORTED_FEATURE', 'publisher_domain']);
  });

  it('get_media_buy_delivery applies status_filter', async () => {
    const create = async () =>
      (
        await served.call('create_media_buy', {
          account: acme,
          brand: acme.brand,
          start_time: 'asap',
          end_time: '2099-06-30T23:59:59Z',
          packages: [{ product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 1000 }],
          idempotency_key: `kit-lists-delivery-${String(++keys).padStart(6, '0')}`,
        })
      ).body.media_buy_id as string;
    const live = await create();
    const canceled = await create();
    await served.call('update_media_buy', {
      account: acme,
      media_buy_id: canceled,
      canceled: true,
      idempotency_key: `kit-lists-delivery-${String(++keys).padStart(6, '0')}`,
    });
    const delivered = async (args: Json) =>
      ((await served.call('get_media_buy_delivery', args)).body.media_buy_deliveries as Json[]).map(
        (d) => d.media_buy_id,
      );
    assert.deepEqual(await delivered({ media_buy_ids: [live, canceled], status_filter: 'canceled' }), [canceled]);
    assert.deepEqual(await delivered({ status_filter: ['pending_creatives'] }), [live]);
    assert.equal((await delivered({})).length, 2);
  });
});
