// The reference seller's comply_test_controller scenarios and cursor-paged list tools, over MCP with
// the official client: every forced change shows in the seller's own read tools.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

type Json = Record<string, unknown>;

describe('reference seller sandbox controller', () => {
  let seller: ReferenceSeller;
  let client: Client;
  before(async () => {
    seller = await startReferenceSeller({ testController: true, validateResponses: 'strict' });
    client = new Client({ name: 'sandbox-probe', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
  });

  const call = async (name: string, args: Json) => {
    const result = await client.callTool({ name, arguments: args });
    return { isError: result.isError === true, body: result.structuredContent as Json };
  };
  const control = async (scenario: string, params: Json) =>
    (await call('comply_test_controller', { scenario, params })).body;
  const account = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };
  /** A media buy of one seeded product under `key`; the seller's answer. */
  const createBuy = (productId: string, pricingOptionId: string, budget: number, key: string) =>
    call('create_media_buy', {
      account,
      brand: { domain: 'acmeoutdoor.example' },
      start_time: 'asap',
      end_time: '2099-06-30T23:59:59Z',
      packages: [{ product_id: productId, pricing_option_id: pricingOptionId, budget }],
      idempotency_key: key,
    });

  it('seeds a product once, confirms a media buy of it at once, and walks its lifecycle', async () => {
    const fixture = { delivery_type: 'non_guaranteed', channels: ['display'] };
    assert.equal((await control('seed_product', { product_id: 'test-product', fixture })).success, true);
    assert.equal((await control('seed_product', { product_id: 'test-product', fixture })).previous_state, 'existing');
    const diverging = await control('seed_product', { product_id: 'test-product', fixture: { channels: ['ctv'] } });
    assert.equal(diverging.error, 'INVALID_PARAMS');
    const pricing = { pricing_model: 'cpm', currency: 'USD', floor_price: 1 };
    const option = { product_id: 'test-product', pricing_option_id: 'test-pricing', fixture: pricing };
    assert.equal((await control('seed_pricing_option', option)).success, true);
    const orphan = { product_id: 'never-seeded', pricing_option_id: 'p', fixture: pricing };
    assert.equal((await control('seed_pricing_option', orphan)).error, 'INVALID_PARAMS');
    const products = (await call('get_products', { buying_mode: 'brief', brief: 'display' })).body.products as Json[];
    assert.ok(products.some((p) => p.product_id === 'test-product'));

    const created = await createBuy('test-product', 'test-pricing', 5000, 'sandbox-controller-test-0001');
    assert.equal(created.isError, false);
    assert.equal(created.body.media_buy_status, 'pending_creatives');
    const id = created.body.media_buy_id as string;

    const active = await control('force_media_buy_status', { media_buy_id: id, status: 'active' });
    assert.deepEqual([active.previous_state, active.current_state], ['pending_creatives', 'active']);
    const listed = (await call('get_media_buys', { account, media_buy_ids: [id] })).body;
    assert.equal((listed.media_buys as Json[])[0]?.status, 'active');
    assert.equal((await control('force_media_buy_status', { media_buy_id: id, status: 'completed' })).success, true);
    const back = await control('force_media_buy_status', { media_buy_id: id, status: 'active' });
    assert.deepEqual([back.error, back.current_state], ['INVALID_TRANSITION', 'completed']);
    const unknown = await control('force_media_buy_status', { media_buy_id: 'mb_missing', status: 'paused' });
    assert.equal(unknown.error, 'NOT_FOUND');

    const delivered = await control('simulate_delivery', {
      media_buy_id: id,
      impressions: 10_000,
      clicks: 150,
      reported_spend: { amount: 500, currency: 'USD' },
    });
    assert.deepEqual(delivered.simulated, {
      impressions: 10_000,
      clicks: 150,
      reported_spend: { amount: 500, currency: 'USD' },
    });
    await control('simulate_delivery', { media_buy_id: id, impressions: 5 });
    const delivery = (await call('get_media_buy_delivery', { account, media_buy_ids: [id] })).body;
    const totals = (delivery.media_buy_deliveries as Json[])[0]?.totals as Json;
    assert.deepEqual([totals.impressions, totals.clicks, totals.spend], [10_005, 150, 500]);
    const spend = await control('simulate_budget_spend', { media_buy_id: id, spend_percentage: 95 });
    assert.deepEqual(spend.simulated, {
      spend_percentage: 95,
      computed_spend: { amount: 4750, currency: 'USD' },
      budget: { amount: 5000, currency: 'USD' },
    });
  });

  it('lists only active media buys when get_media_buys has neither media_buy_ids nor status_filter', async () => {
    // get-media-buys-request.json, status_filter: 'Defaults to ["active"] when media_buy_ids is
    // omitted. When media_buy_ids is provided, no implicit status filter is applied.'
    const fixture = { delivery_type: 'non_guaranteed', channels: ['display'] };
    await control('seed_product', { product_id: 'filter-product', fixture });
    const pricing = { pricing_model: 'cpm', currency: 'USD', floor_price: 1 };
    await control('seed_pricing_option', { product_id: 'filter-product', pricing_option_id: 'p', fixture: pricing });
    const buy = async (n: number) => {
      const created = await createBuy('filter-product', 'p', 1000, `status-filter-default-000${n}`);
      assert.equal(created.isError, false, JSON.stringify(created.body));
      return created.body.media_buy_id as string;
    };
    const [active, pending, paused] = [await buy(1), await buy(2), await buy(3)];
    assert.equal((await control('force_media_buy_status', { media_buy_id: active, status: 'active' })).success, true);
    await control('force_media_buy_status', { media_buy_id: paused, status: 'active' });
    assert.equal((await control('force_media_buy_status', { media_buy_id: paused, status: 'paused' })).success, true);
    const mine = new Set([active, pending, paused]);
    /** The listed statuses of this test's buys, by media buy id (the list is ordered by id). */
    const listed = async (args: Json) => {
      const answer = await call('get_media_buys', { account, ...args });
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      const statuses: Record<string, unknown> = {};
      for (const b of answer.body.media_buys as Json[])
        if (mine.has(b.media_buy_id as string)) statuses[b.media_buy_id as string] = b.status;
      return statuses;
    };
    assert.deepEqual(await listed({}), { [active]: 'active' });
    assert.deepEqual(await listed({ status_filter: 'pending_creatives' }), { [pending]: 'pending_creatives' });
    assert.deepEqual(await listed({ status_filter: ['active', 'paused'] }), { [active]: 'active', [paused]: 'paused' });
    assert.deepEqual(await listed({ media_buy_ids: [active, pending, paused] }), {
      [active]: 'active',
      [pending]: 'pending_creatives',
      [paused]: 'paused',
    });
  });

  it('forces creative statuses along the creative lifecycle, with the reason kept', async () => {
    const creative = { creative_id: 'cr-state', name: 'State', format_id: { agent_url: 'https://f.example', id: 'd' } };
    await call('sync_creatives', {
      account,
      creatives: [{ ...creative, assets: {} }],
      idempotency_key: 'sandbox-sync-0000001',
    });
    assert.equal(
      (await control('force_creative_status', { creative_id: 'cr-state', status: 'approved' })).success,
      true,
    );
    assert.equal(
      (await control('force_creative_status', { creative_id: 'cr-state', status: 'archived' })).success,
      true,
    );
    const reopened = await control('force_creative_status', { creative_id: 'cr-state', status: 'processing' });
    assert.equal(reopened.error, 'INVALID_TRANSITION');
    await control('seed_creative', { creative_id: 'cr-reject', fixture: { status: 'approved' } });
    const rejected = await control('force_creative_status', {
      creative_id: 'cr-reject',
      status: 'rejected',
      rejection_reason: 'Brand safety',
    });
    assert.equal(rejected.current_state, 'rejected');
    const shown = (await call('list_creatives', { filters: { creative_ids: ['cr-reject'] } })).body;
    assert.deepEqual(
      (shown.creatives as Json[]).map((c) => [c.status, c.rejection_reason]),
      [['rejected', 'Brand safety']],
    );
  });

  it('pages list_creatives by cursor to a terminal page, and refuses a cursor of another query', async () => {
    for (const n of [1, 2, 3])
      await control('seed_creative', { creative_id: `page-${n}`, fixture: { status: 'approved' } });
    const filters = { creative_ids: ['page-1', 'page-2', 'page-3'] };
    const first = (await call('list_creatives', { filters, pagination: { max_results: 2 } })).body;
    const firstPage = first.pagination as Json;
    assert.deepEqual([firstPage.has_more, firstPage.total_count, typeof firstPage.cursor], [true, 3, 'string']);
    assert.deepEqual(first.query_summary, {
      total_matching: 3,
      returned: 2,
      filters_applied: ['creative_ids'],
      sort_applied: { field: 'created_date', direction: 'desc' },
    });
    const cursor = firstPage.cursor as string;
    const last = (await call('list_creatives', { filters, pagination: { max_results: 2, cursor } })).body;
    assert.deepEqual(
      (last.creatives as Json[]).map((c) => c.creative_id),
      ['page-1'], // newest seeded first
    );
    assert.deepEqual(last.pagination, { has_more: false, total_count: 3 });
    const foreign = await call('list_creatives', { filters: { creative_ids: ['page-1'] }, pagination: { cursor } });
    assert.equal(foreign.isError, true);
    assert.deepEqual(
      [(foreign.body.adcp_error as Json).code, (foreign.body.adcp_error as Json).field],
      ['INVALID_REQUEST', 'pagination.cursor'],
    );
  });
});
