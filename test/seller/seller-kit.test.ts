// Issue 31: the reference seller serves the media-buy kit's tools over its own state (update_media_buy
// on the buys its create_media_buy made, accounts, governance, formats, feedback) and the kit's
// controller scenarios, claims sales-guaranteed and sales-non-guaranteed; answers checked strict.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMediaBuyKit, MemoryKitRecords } from '../../src/kit/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

type Json = Record<string, unknown>;

describe('reference seller on the media-buy kit', () => {
  let seller: ReferenceSeller;
  let client: Client;
  before(async () => {
    seller = await startReferenceSeller({ testController: true, validateResponses: 'strict' });
    client = new Client({ name: 'seller-kit-probe', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
  });

  let keys = 0;
  const key = () => `seller-kit-key-${String(++keys).padStart(6, '0')}`;
  const call = async (name: string, args: Json) => {
    const result = await client.callTool({ name, arguments: args });
    const body = result.structuredContent as Json;
    return { body, code: (body.adcp_error as Json | undefined)?.code };
  };
  const control = async (scenario: string, params: Json) =>
    (await call('comply_test_controller', { scenario, params })).body;
  const account = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };
  const create = (buyer: Json = account) =>
    call('create_media_buy', {
      account: buyer,
      brand: buyer.brand,
      start_time: 'asap',
      end_time: '2099-06-30T23:59:59Z',
      packages: [{ product_id: 'kit-product', pricing_option_id: 'kit-pricing', budget: 5000 }],
      idempotency_key: key(),
    });
  const update = (args: Json) => call('update_media_buy', { account, idempotency_key: key(), ...args });

  it("reads the storyboards' fixture channel 'video' as olv (no 3.1 channel is named video)", async () => {
    await control('seed_product', {
      product_id: 'video-product',
      fixture: {
        channels: ['video'],
        pricing_options: [{ pricing_option_id: 'v', pricing_model: 'cpm', currency: 'USD', floor_price: 2 }],
      },
    });
    const products = (await call('get_products', { buying_mode: 'brief', brief: 'video' })).body.products as Json[];
    assert.deepEqual(products.find((p) => p.product_id === 'video-product')?.channels, ['olv']);
  });

  it('claims the two sales specialisms', async () => {
    const caps = (await call('get_adcp_capabilities', {})).body;
    assert.deepEqual(caps.specialisms, ['sales-guaranteed', 'sales-non-guaranteed']);
    assert.equal((caps.media_buy as Json).creative_approval_mode, 'auto_approve');
  });

  it("serves every tool of the kit and declares the kit's capabilities", async () => {
    const kit = createMediaBuyKit({ records: new MemoryKitRecords(), seller: { products: () => [] } });
    const served = new Set((await client.listTools()).tools.map((t) => t.name));
    assert.deepEqual(
      kit.tools.map((t) => t.name).filter((name) => !served.has(name)),
      [],
    );
    const media = (await call('get_adcp_capabilities', {})).body.media_buy as Json;
    assert.deepEqual(media.buying_modes, ['brief', 'refine']);
    assert.equal(media.supports_proposals, true);
    assert.deepEqual(media.conversion_tracking, { multi_source_event_dedup: true });
    assert.equal((media.audience_targeting as Json).minimum_audience_size, 1);
    // A brief's answer carries the seller's plans, each of its own catalog products, summing to 100 %.
    const answer = (await call('get_products', { buying_mode: 'brief', brief: 'premium sports video' })).body;
    const proposals = answer.proposals as Json[];
    assert.ok(proposals.length > 0, JSON.stringify(answer));
    for (const proposal of proposals) {
      const shares = (proposal.allocations as Json[]).map((a) => a.allocation_percentage as number);
      assert.equal(
        shares.reduce((sum, n) => sum + n, 0),
        100,
      );
    }
  });

  it('updates, pauses and cancels the buys its create_media_buy made, with the spec errors', async () => {
    await control('seed_product', { product_id: 'kit-product', fixture: { delivery_type: 'non_guaranteed' } });
    await control('seed_pricing_option', {
      product_id: 'kit-product',
      pricing_option_id: 'kit-pricing',
      fixture: { pricing_model: 'cpm', currency: 'USD', fixed_price: 10 },
    });
    const created = await create();
    assert.equal(created.body.media_buy_status, 'pending_creatives', JSON.stringify(created.body));
    const id = created.body.media_buy_id as string;
    assert.equal((await update({ media_buy_id: 'mb_missing', paused: true })).code, 'MEDIA_BUY_NOT_FOUND');
    const noPackage = await update({ media_buy_id: id, packages: [{ package_id: 'pkg_nope', budget: 1 }] });
    assert.equal(noPackage.code, 'PACKAGE_NOT_FOUND');
    const rebudget = await update({ media_buy_id: id, packages: [{ package_id: `${id}_pkg_1`, budget: 6000 }] });
    assert.equal(rebudget.body.total_budget, 6000, JSON.stringify(rebudget.body));
    assert.equal((await update({ media_buy_id: id, paused: true })).body.media_buy_status, 'paused');
    assert.equal((await update({ media_buy_id: id, canceled: true })).body.media_buy_status, 'canceled');
    assert.equal((await update({ media_buy_id: id, canceled: true })).code, 'NOT_CANCELLABLE');
    const listed = (await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[];
    assert.equal(listed[0]?.status, 'canceled');
    assert.equal((listed[0]?.cancellation as Json | undefined)?.canceled_by, 'buyer');
  });

  it('syncs and lists accounts, forces their status, lists formats, records feedback', async () => {
    const synced = await call('sync_accounts', {
      idempotency_key: key(),
      accounts: [{ ...account, billing: 'operator' }],
    });
    const accountId = ((synced.body.accounts as Json[])[0] as Json).account_id as string;
    assert.equal(((await call('list_accounts', {})).body.accounts as Json[])[0]?.account_id, accountId);
    const forced = await control('force_account_status', { account_id: accountId, status: 'suspended' });
    assert.equal(forced.current_state, 'suspended');
    const governance = await call('sync_governance', {
      idempotency_key: key(),
      accounts: [
        {
          account,
          governance_agents: [
            {
              url: 'https://governance.example/mcp',
              authentication: { schemes: ['Bearer'], credentials: 'gov-token-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' },
            },
          ],
        },
      ],
    });
    assert.equal(
      (governance.body.accounts as Json[] | undefined)?.[0]?.status,
      'synced',
      JSON.stringify(governance.body),
    );
    const formats = (await call('list_creative_formats', {})).body.formats as Json[];
    assert.ok(formats.some((f) => (f.format_id as Json).id === 'video_30s'));
    const created = await call('create_media_buy', {
      account: { brand: { domain: 'other.example' }, operator: 'other.example' },
      brand: { domain: 'other.example' },
      start_time: 'asap',
      end_time: '2099-06-30T23:59:59Z',
      packages: [{ product_id: 'kit-product', pricing_option_id: 'kit-pricing', budget: 5000 }],
      idempotency_key: key(),
    });
    const feedback = await call('provide_performance_feedback', {
      media_buy_id: created.body.media_buy_id,
      idempotency_key: key(),
      measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' },
      performance_index: 0.8,
    });
    assert.equal(feedback.body.success, true, JSON.stringify(feedback.body));
  });

  it('answers submitted once when force_create_media_buy_arm asks for it', async () => {
    const forced = await control('force_create_media_buy_arm', { arm: 'submitted', task_id: 'forced_task_1' });
    assert.equal(forced.success, true);
    // An account of its own: an earlier test suspended the shared one.
    const buyer = { brand: { domain: 'arm.example' }, operator: 'arm.example' };
    const submitted = await create(buyer);
    assert.equal(submitted.body.status, 'submitted', JSON.stringify(submitted.body));
    assert.equal(submitted.body.media_buy_id, undefined);
    assert.equal((await create(buyer)).body.media_buy_status, 'pending_creatives');
  });

  it('advertises force_create_media_buy_arm to a 3.1 caller, only 3.0 enum scenarios to a 3.0 one', async () => {
    const scenarios = async (release: string) =>
      ((await call('get_adcp_capabilities', { adcp_version: release })).body.compliance_testing as Json)
        .scenarios as string[];
    assert.ok((await scenarios('3.1')).includes('force_create_media_buy_arm'));
    assert.ok((await scenarios('3.1')).includes('seed_product'));
    assert.deepEqual(await scenarios('3.0'), [
      'force_account_status',
      'force_creative_status',
      'force_media_buy_status',
      'simulate_budget_spend',
      'simulate_delivery',
    ]);
  });
});
