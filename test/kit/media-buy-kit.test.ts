// The media-buy kit (src/kit) served by createAdcpServer and called with the official MCP client:
// every answer is checked against the 3.1 response schemas (validateResponses: strict), over
// records in memory, in a real SQLite file and in PostgreSQL (when ADCP_TEST_PG_URL is set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AdcpToolDefinition, ToolContext } from '../../src/server/types.js';
import { createMediaBuyKit, MemoryKitRecords } from '../../src/kit/index.js';
import { account, FORMAT, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

const PRODUCTS = [kitProduct()];

let keys = 0;
const key = () => `kit-test-key-${String(++keys).padStart(6, '0')}`;

for (const store of KIT_STORES) {
  describe(`media-buy kit over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    before(async () => {
      served = await serveKit(
        (records) =>
          createMediaBuyKit({
            records,
            seller: {
              products: () => PRODUCTS,
              formats: [{ format_id: FORMAT, name: 'Medium rectangle' }],
              propose: () => [
                { name: 'Plan A', allocations: [{ product_id: 'news_display', allocation_percentage: 100 }] },
                { name: 'Plan B', allocations: [{ product_id: 'news_display', allocation_percentage: 100 }] },
              ],
            },
          }),
        store,
      );
    });
    after(() => served.close());

    const call = (name: string, args: Json) => served.call(name, args);
    const control = async (scenario: string, params: Json) =>
      (await call('comply_test_controller', { scenario, params })).body;
    const create = (extra: Json = {}, pkg: Json = {}) =>
      call('create_media_buy', {
        account,
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: [
          { product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 5000, context: { line: 'a' }, ...pkg },
        ],
        idempotency_key: key(),
        context: { correlation_id: 'create' },
        ...extra,
      });
    const update = (args: Json) => call('update_media_buy', { account, idempotency_key: key(), ...args });

    it('walks a buy from pending_creatives to active, paused, canceled, with the spec errors on the way', async () => {
      const created = await create();
      assert.equal(created.isError, false, JSON.stringify(created.body));
      assert.equal(created.body.media_buy_status, 'pending_creatives');
      assert.deepEqual((created.body.packages as Json[])[0]?.context, { line: 'a' });
      const id = created.body.media_buy_id as string;
      const packageId = (created.body.packages as Json[])[0]?.package_id as string;

      assert.equal((await update({ media_buy_id: 'mb_nope', paused: true })).code, 'MEDIA_BUY_NOT_FOUND');
      const unknownPackage = await update({ media_buy_id: id, packages: [{ package_id: 'pkg_nope', budget: 1 }] });
      assert.equal(unknownPackage.code, 'PACKAGE_NOT_FOUND');
      const unknownCreative = await update({
        media_buy_id: id,
        packages: [{ package_id: packageId, creative_assignments: [{ creative_id: 'missing' }] }],
      });
      assert.equal(unknownCreative.code, 'CREATIVE_NOT_FOUND');

      const synced = await call('sync_creatives', {
        account,
        idempotency_key: key(),
        creatives: [{ creative_id: 'cr_1', name: 'Rectangle', format_id: FORMAT, assets: {} }],
      });
      assert.deepEqual((synced.body.creatives as Json[])[0], {
        creative_id: 'cr_1',
        action: 'created',
        status: 'approved',
      });
      const assigned = await update({
        media_buy_id: id,
        revision: 1,
        packages: [{ package_id: packageId, creative_assignments: [{ creative_id: 'cr_1' }], budget: 6000 }],
      });
      assert.equal(assigned.isError, false, JSON.stringify(assigned.body));
      assert.equal(assigned.body.media_buy_status, 'active');
      assert.equal(assigned.body.revision, 2);
      assert.equal(((assigned.body.affected_packages as Json[])[0] as Json).budget, 6000);
      assert.equal((await update({ media_buy_id: id, revision: 1, paused: true })).code, 'CONFLICT');

      assert.equal((await update({ media_buy_id: id, paused: true })).body.media_buy_status, 'paused');
      assert.equal((await update({ media_buy_id: id, paused: false })).body.media_buy_status, 'active');
      const listed = (await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[];
      assert.equal(listed[0]?.status, 'active');
      assert.deepEqual(listed[0]?.context, { correlation_id: 'create' });
      assert.ok((listed[0]?.valid_actions as string[] | undefined)?.includes('pause'));

      const canceled = await update({ media_buy_id: id, canceled: true, cancellation_reason: 'done' });
      assert.equal(canceled.body.media_buy_status, 'canceled');
      assert.equal((await update({ media_buy_id: id, canceled: true })).code, 'NOT_CANCELLABLE');
      assert.equal((await update({ media_buy_id: id, paused: true })).code, 'INVALID_STATE');
      const after = (await call('get_media_buys', { account, media_buy_ids: [id] })).body.media_buys as Json[];
      assert.deepEqual([after[0]?.status, (after[0]?.cancellation as Json | undefined)?.reason], ['canceled', 'done']);
      assert.deepEqual(after[0]?.valid_actions, []);
    });

    it('refuses unworkable measurement terms, unknown products and reversed flights', async () => {
      const terms = { billing_measurement: { vendor: { domain: 'videoamp.example' }, max_variance_percent: 0 } };
      assert.equal((await create({}, { measurement_terms: terms })).code, 'TERMS_REJECTED');
      assert.equal((await create({}, { product_id: 'nope' })).code, 'PRODUCT_NOT_FOUND');
      assert.equal((await create({ end_time: '2000-01-01T00:00:00Z' })).code, 'VALIDATION_ERROR');
    });

    it('syncs accounts, forces their status through the controller, and refuses buys of a suspended one', async () => {
      const synced = await call('sync_accounts', {
        idempotency_key: key(),
        accounts: [{ ...account, billing: 'operator', payment_terms: 'net_30' }],
      });
      const entry = (synced.body.accounts as Json[])[0] as Json;
      assert.deepEqual([entry.action, entry.status], ['created', 'active']);
      const listed = (await call('list_accounts', {})).body.accounts as Json[];
      assert.equal(listed[0]?.account_id, entry.account_id);
      const suspended = await control('force_account_status', { account_id: entry.account_id, status: 'suspended' });
      assert.deepEqual([suspended.previous_state, suspended.current_state], ['active', 'suspended']);
      assert.equal((await create()).code, 'ACCOUNT_SUSPENDED');
      await control('force_account_status', { account_id: entry.account_id, status: 'active' });
      await control('force_account_status', { account_id: entry.account_id, status: 'payment_required' });
      assert.equal((await create()).code, 'ACCOUNT_PAYMENT_REQUIRED');
      await control('force_account_status', { account_id: entry.account_id, status: 'closed' });
      const back = await control('force_account_status', { account_id: entry.account_id, status: 'active' });
      assert.equal(back.error, 'INVALID_TRANSITION');
      const byId = await call('create_media_buy', {
        account: { account_id: 'acct_unknown' },
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: [{ product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 5000 }],
        idempotency_key: key(),
      });
      assert.equal(byId.code, 'ACCOUNT_NOT_FOUND');
    });

    it('answers submitted when the controller forces that arm, once', async () => {
      const other = { brand: { domain: 'other.example' }, operator: 'other.example' };
      const forced = await control('force_create_media_buy_arm', { arm: 'submitted', task_id: 'task_forced_1' });
      assert.equal((forced.forced as Json).arm, 'submitted');
      const submitted = await create({ account: other });
      assert.equal(submitted.body.status, 'submitted');
      // The directive's task_id, verbatim, and the task polls under it (comply-test-controller.md).
      assert.equal(submitted.body.task_id, 'task_forced_1');
      const polled = await call('get_task_status', { task_id: 'task_forced_1' });
      assert.equal(polled.body.task_type, 'create_media_buy', JSON.stringify(polled.body));
      assert.equal(submitted.body.media_buy_id, undefined);
      const next = await create({ account: other });
      assert.equal(next.body.media_buy_status, 'pending_creatives');
    });

    it('builds a creative from a synced creative_id or a manifest, in the formats the seller accepts', async () => {
      const image = { asset_type: 'image', url: 'https://cdn.example/rect.png', width: 300, height: 250 };
      await call('sync_creatives', {
        account,
        idempotency_key: key(),
        creatives: [{ creative_id: 'cr_build', name: 'Build source', format_id: FORMAT, assets: { main: image } }],
      });
      const listed = await call('list_creatives', { filters: { creative_ids: ['cr_build'] } });
      assert.equal(JSON.stringify(listed.body).includes('kit_assets'), false, 'the kept assets are never listed');
      const retrieved = await call('build_creative', {
        creative_id: 'cr_build',
        target_format_id: FORMAT,
        idempotency_key: key(),
      });
      assert.deepEqual(retrieved.body.creative_manifest, { format_id: FORMAT, assets: { main: image } });
      const multi = await call('build_creative', {
        creative_manifest: { format_id: FORMAT, assets: { main: image } },
        target_format_ids: [FORMAT],
        idempotency_key: key(),
      });
      assert.deepEqual(multi.body.creative_manifests, [{ format_id: FORMAT, assets: { main: image } }]);
      const other = { agent_url: FORMAT.agent_url, id: 'display_728x90' };
      const unknown = await call('build_creative', {
        creative_id: 'cr_build',
        target_format_id: other,
        idempotency_key: key(),
      });
      assert.equal(unknown.code, 'FORMAT_NOT_SUPPORTED');
      const generate = await call('build_creative', {
        message: 'A spring sale banner',
        target_format_id: FORMAT,
        idempotency_key: key(),
      });
      assert.equal(generate.code, 'UNSUPPORTED_FEATURE');
      const missing = await call('build_creative', {
        creative_id: 'cr_nope',
        target_format_id: FORMAT,
        idempotency_key: key(),
      });
      assert.equal(missing.code, 'CREATIVE_NOT_FOUND');
    });

    it('answers input-required, with no buy made, when the controller forces that arm, once', async () => {
      const other = { brand: { domain: 'other.example' }, operator: 'other.example' };
      const message = 'Budget above the auto-approval limit: confirm to proceed.';
      await control('force_create_media_buy_arm', { arm: 'input-required', message });
      const answer = await create({ account: other });
      assert.equal(answer.code, undefined, JSON.stringify(answer.body));
      assert.equal(answer.body.status, 'input-required');
      assert.equal(answer.body.message, message);
      assert.equal(answer.body.reason, 'APPROVAL_REQUIRED');
      assert.equal((answer.body.errors as Json[])[0]?.code, 'APPROVAL_REQUIRED');
      assert.equal(answer.body.media_buy_id, undefined);
      assert.equal((await create({ account: other })).body.media_buy_status, 'pending_creatives');
    });

    it('proposes, refines, finalizes and executes a proposal, with the proposal errors', async () => {
      const brief = await call('get_products', { buying_mode: 'brief', brief: 'news display', account });
      const proposals = brief.body.proposals as Json[];
      assert.deepEqual(
        proposals.map((p) => [p.name, p.proposal_status]),
        [
          ['Plan A', 'draft'],
          ['Plan B', 'draft'],
        ],
      );
      assert.equal(brief.body.cache_scope, 'account');
      const [a, b] = proposals.map((p) => p.proposal_id) as [string, string];
      const again = await call('get_products', { buying_mode: 'brief', brief: 'news display', account });
      assert.equal((again.body.proposals as Json[])[0]?.proposal_id, a, 'the same brief names the same proposals');

      const refined = await call('get_products', {
        buying_mode: 'refine',
        refine: [
          { scope: 'proposal', proposal_id: a },
          { scope: 'proposal', proposal_id: b, action: 'omit' },
          { scope: 'request', ask: 'only guaranteed' },
          { scope: 'product', product_id: 'news_display', action: 'omit' },
        ],
      });
      assert.equal(refined.isError, false, JSON.stringify(refined.body));
      assert.deepEqual(
        (refined.body.proposals as Json[]).map((p) => p.proposal_id),
        [a],
      );
      assert.deepEqual(refined.body.products, []);
      assert.deepEqual(
        (refined.body.refinement_applied as Json[]).map((r) => r.status),
        ['applied', 'applied', 'unable', 'applied'],
      );
      const unknown = await call('get_products', {
        buying_mode: 'refine',
        refine: [{ scope: 'proposal', proposal_id: 'prop_never', action: 'finalize' }],
      });
      assert.deepEqual(
        [unknown.code, (unknown.body.adcp_error as Json).field],
        ['PROPOSAL_NOT_FOUND', 'refine[0].proposal_id'],
      );
      const mixed = await call('get_products', {
        buying_mode: 'refine',
        refine: [
          { scope: 'proposal', proposal_id: a, action: 'finalize' },
          { scope: 'request', ask: 'cheaper' },
        ],
      });
      assert.equal(mixed.code, 'INVALID_REQUEST');

      const execute = (proposal: string, extra: Json = {}) =>
        call('create_media_buy', {
          account: { brand: { domain: 'prop.example' }, operator: 'prop.example' },
          brand: { domain: 'prop.example' },
          proposal_id: proposal,
          total_budget: { amount: 50000, currency: 'USD' },
          start_time: 'asap',
          end_time: '2099-06-30T23:59:59Z',
          idempotency_key: key(),
          ...extra,
        });
      assert.equal((await execute(a)).code, 'PROPOSAL_NOT_COMMITTED');
      assert.equal((await execute('prop_never')).code, 'PROPOSAL_NOT_FOUND');
      const finalized = await call('get_products', {
        buying_mode: 'refine',
        refine: [{ scope: 'proposal', proposal_id: a, action: 'finalize' }],
      });
      const committed = (finalized.body.proposals as Json[])[0] as Json;
      assert.equal(committed.proposal_status, 'committed');
      assert.ok(Date.parse(committed.expires_at as string) > Date.now());
      const io = committed.insertion_order as Json;
      assert.equal(io.requires_signature, true);
      assert.equal((await execute(a)).code, 'IO_REQUIRED');
      const bought = await execute(a, {
        io_acceptance: { io_id: io.io_id, accepted_at: '2026-03-15T14:30:00Z', signatory: 'ops@acmeoutdoor.example' },
      });
      assert.equal(bought.isError, false, JSON.stringify(bought.body));
      assert.deepEqual(
        (bought.body.packages as Json[]).map((p) => [p.product_id, p.pricing_option_id, p.budget]),
        [['news_display', 'cpm_fixed', 50000]],
      );
      const rebrief = await call('get_products', { buying_mode: 'brief', brief: 'news display', account });
      assert.equal((rebrief.body.proposals as Json[])[0]?.proposal_status, 'committed', 'never back to draft');
    });

    it('registers event sources, de-duplicates events across them, and binds goals to known sources', async () => {
      const sync = (sources: Json[], extra: Json = {}) =>
        call('sync_event_sources', { account, idempotency_key: key(), event_sources: sources, ...extra });
      const pixel = { event_source_id: 'pixel', name: 'Pixel', event_types: ['purchase'] };
      const first = await sync([pixel, { event_source_id: 'capi', event_types: ['purchase'] }]);
      assert.equal(first.isError, false, JSON.stringify(first.body));
      assert.deepEqual(
        (first.body.event_sources as Json[]).map((e) => [e.event_source_id, e.action]),
        [
          ['pixel', 'created'],
          ['capi', 'created'],
        ],
      );
      assert.ok(typeof (((first.body.event_sources as Json[])[0] as Json).setup as Json).snippet === 'string');
      assert.equal(((await sync([pixel])).body.event_sources as Json[])[0]?.action, 'unchanged');
      const log = (source: string, ids: string[]) =>
        call('log_event', {
          event_source_id: source,
          idempotency_key: key(),
          events: ids.map((event_id) => ({ event_id, event_type: 'purchase', event_time: '2026-06-05T14:30:00Z' })),
        });
      const logged = await log('pixel', ['evt_1', 'evt_2']);
      assert.deepEqual([logged.body.events_received, logged.body.events_processed], [2, 2]);
      const again = await log('capi', ['evt_1']);
      assert.deepEqual([again.body.events_received, again.body.events_processed], [1, 0]);
      assert.equal((await log('nope', ['evt_3'])).code, 'REFERENCE_NOT_FOUND');
      const goal = (source: string) => ({
        optimization_goals: [
          { kind: 'event', event_sources: [{ event_source_id: source, event_type: 'purchase' }], priority: 1 },
        ],
      });
      const buyer = { brand: { domain: 'conv.example' }, operator: 'conv.example' };
      const phantom = await create({ account: buyer }, goal('phantom'));
      assert.deepEqual(
        [phantom.code, (phantom.body.adcp_error as Json).field],
        ['INVALID_REQUEST', 'packages[0].optimization_goals[0].event_sources[0].event_source_id'],
      );
      // Sources belong to the account that synced them (decision 0321): pixel is not buyer's yet.
      assert.equal((await create({ account: buyer }, goal('pixel'))).code, 'INVALID_REQUEST');
      assert.equal((await sync([pixel], { account: buyer })).isError, false);
      assert.equal((await create({ account: buyer }, goal('pixel'))).isError, false);
      const pruned = await sync([pixel], { delete_missing: true });
      assert.deepEqual(
        (pruned.body.event_sources as Json[]).map((e) => [e.event_source_id, e.action]),
        [
          ['pixel', 'unchanged'],
          ['capi', 'deleted'],
        ],
      );
      assert.equal((await log('capi', ['evt_4'])).code, 'REFERENCE_NOT_FOUND');
    });

    it('syncs audiences by external_id, lists, deletes, and binds targeting to known audiences', async () => {
      const sync = (extra: Json) => call('sync_audiences', { account, idempotency_key: key(), ...extra });
      const email = (n: number) => n.toString(16).padStart(64, '0');
      const created = await sync({
        audiences: [
          {
            audience_id: 'loyal',
            name: 'Loyal customers',
            audience_type: 'crm',
            add: [
              { external_id: 'c1', hashed_email: email(1) },
              { external_id: 'c2', hashed_email: email(2) },
            ],
          },
        ],
      });
      assert.equal(created.isError, false, JSON.stringify(created.body));
      const first = (created.body.audiences as Json[])[0] as Json;
      assert.deepEqual(
        [first.action, first.status, first.total_uploaded_count, first.matched_count, first.members],
        ['created', 'ready', 2, 2, undefined],
      );
      const removed = await sync({
        audiences: [{ audience_id: 'loyal', remove: [{ external_id: 'c1', hashed_email: email(1) }] }],
      });
      assert.deepEqual(
        [(removed.body.audiences as Json[])[0]?.action, (removed.body.audiences as Json[])[0]?.total_uploaded_count],
        ['updated', 1],
      );
      const listed = await sync({});
      assert.deepEqual(
        (listed.body.audiences as Json[]).map((a) => [a.audience_id, a.action]),
        [['loyal', 'unchanged']],
      );
      const buyer = { brand: { domain: 'aud.example' }, operator: 'aud.example' };
      const phantom = await create({ account: buyer }, { targeting_overlay: { audience_include: ['ghost'] } });
      assert.deepEqual(
        [phantom.code, (phantom.body.adcp_error as Json).field],
        ['INVALID_REQUEST', 'packages[0].targeting_overlay.audience_include[0]'],
      );
      // Audiences belong to the account that synced them (decision 0321): loyal is not buyer's yet.
      const targeting = { targeting_overlay: { audience_include: ['loyal'] } };
      assert.equal((await create({ account: buyer }, targeting)).code, 'INVALID_REQUEST');
      const registered = await sync({ account: buyer, audiences: [{ audience_id: 'loyal', audience_type: 'crm' }] });
      assert.equal(registered.isError, false, JSON.stringify(registered.body));
      assert.equal((await create({ account: buyer }, targeting)).isError, false);
      const deleted = await sync({ audiences: [{ audience_id: 'loyal', delete: true }] });
      assert.equal((deleted.body.audiences as Json[])[0]?.action, 'deleted');
      assert.deepEqual((await sync({})).body.audiences, []);
    });

    it('syncs catalogs, renders previews, and reports account financials', async () => {
      const sync = (extra: Json) => call('sync_catalogs', { account, idempotency_key: key(), ...extra });
      const items = [
        { item_id: 'sku_1', title: 'Tent' },
        { item_id: 'sku_2', title: 'Stove' },
      ];
      const created = await sync({
        catalogs: [
          { catalog_id: 'inline', type: 'product', items },
          {
            catalog_id: 'feed',
            type: 'product',
            url: 'https://feeds.example/products.xml',
            feed_format: 'google_merchant_center',
          },
        ],
      });
      assert.equal(created.isError, false, JSON.stringify(created.body));
      assert.deepEqual(
        (created.body.catalogs as Json[]).map((c) => [c.catalog_id, c.action, c.item_count]),
        [
          ['inline', 'created', 2],
          ['feed', 'created', 0],
        ],
      );
      const dry = await sync({
        catalogs: [{ catalog_id: 'inline', type: 'product', items }],
        delete_missing: true,
        dry_run: true,
      });
      assert.deepEqual(
        (dry.body.catalogs as Json[]).map((c) => [c.catalog_id, c.action]),
        [
          ['inline', 'unchanged'],
          ['feed', 'deleted'],
        ],
      );
      assert.deepEqual(
        ((await sync({ catalog_ids: ['feed'] })).body.catalogs as Json[]).map((c) => c.catalog_id),
        ['feed'],
        'a dry run deletes nothing',
      );
      // catalog_ids scopes a sync: the rest of the array is not synced, the rest of the account
      // is not deleted (sync-catalogs-request.json: "Other catalogs on the account are unaffected").
      const scoped = await sync({
        catalog_ids: ['inline'],
        catalogs: [
          { catalog_id: 'other', type: 'product', items },
          { catalog_id: 'feed', type: 'product', items },
        ],
        delete_missing: true,
      });
      assert.equal(scoped.isError, false, JSON.stringify(scoped.body));
      assert.deepEqual(
        (scoped.body.catalogs as Json[]).map((c) => [c.catalog_id, c.action, c.item_count]),
        [
          ['other', 'failed', undefined],
          ['feed', 'unchanged', 0],
          ['inline', 'deleted', undefined],
        ],
      );
      assert.deepEqual(
        ((await sync({})).body.catalogs as Json[]).map((c) => c.catalog_id),
        ['feed'],
        'feed, outside catalog_ids, is kept; other was not created',
      );

      const manifest = {
        creative_id: 'cr_1',
        format_id: FORMAT,
        assets: { image: { asset_type: 'image', url: 'https://cdn.example/a.png?x=1&y=2', width: 300, height: 250 } },
      };
      const preview = await call('preview_creative', {
        request_type: 'single',
        creative_manifest: manifest,
      });
      assert.equal(preview.isError, false, JSON.stringify(preview.body));
      const render = (((preview.body.previews as Json[])[0] as Json).renders as Json[])[0] as Json;
      assert.deepEqual(render.dimensions, { width: 300, height: 250 });
      const page = render.preview_url as string;
      assert.ok(page.startsWith('data:text/html;base64,'));
      const decoded = Buffer.from(page.slice('data:text/html;base64,'.length), 'base64').toString();
      assert.ok(decoded.includes('src="https://cdn.example/a.png?x=1&amp;y=2"'), decoded);
      const hostile = {
        creative_id: '<script>alert(1)</script>',
        format_id: FORMAT,
        assets: { click: { asset_type: 'url', url: 'https://acme.example/' } },
      };
      const batch = await call('preview_creative', {
        request_type: 'batch',
        requests: [{ creative_manifest: hostile, output_format: 'html' }],
      });
      const result = (batch.body.results as Json[])[0] as Json;
      const html = (((((result.response as Json).previews as Json[])[0] as Json).renders as Json[])[0] as Json)
        .preview_html as string;
      assert.ok(html.includes('&lt;script&gt;') && !html.includes('<script>'), 'buyer values are escaped');

      const buyer = { brand: { domain: 'fin.example' }, operator: 'fin.example' };
      await call('sync_accounts', {
        idempotency_key: key(),
        accounts: [{ ...buyer, billing: 'operator', payment_terms: 'net_30' }],
      });
      const bought = await create({ account: buyer });
      await control('simulate_delivery', {
        media_buy_id: bought.body.media_buy_id,
        impressions: 1000,
        reported_spend: { amount: 12.5, currency: 'USD' },
      });
      const financials = await call('get_account_financials', { account: buyer });
      assert.equal(financials.isError, false, JSON.stringify(financials.body));
      assert.deepEqual(
        [financials.body.spend, financials.body.payment_status, financials.body.payment_terms],
        [{ total_spend: 12.5, media_buy_count: 1 }, 'current', 'net_30'],
      );
      const unknownProduct = await call('get_products', {
        buying_mode: 'refine',
        refine: [{ scope: 'product', product_id: 'nope', ask: 'more' }],
      });
      assert.deepEqual((unknownProduct.body.refinement_applied as Json[])[0]?.status, 'unable');
    });

    it('keeps account notification_configs paused, replaces them by subscriber, refuses bad ones per account', async () => {
      const owner = { brand: { domain: 'notify.example' }, operator: 'notify.example' };
      const subscriber = (id: string, types: string[]) => ({
        subscriber_id: id,
        url: `https://buyer.example/hooks/${id}`,
        event_types: types,
        active: true,
      });
      const sync = (entry: Json) => call('sync_accounts', { idempotency_key: key(), accounts: [entry] });
      const created = await sync({
        ...owner,
        billing: 'operator',
        notification_configs: [subscriber('a', ['creative.purged'])],
      });
      const first = (created.body.accounts as Json[])[0] as Json;
      assert.deepEqual(first.notification_configs, [
        { subscriber_id: 'a', url: 'https://buyer.example/hooks/a', event_types: ['creative.purged'], active: false },
      ]);
      const updated = await sync({
        account: { account_id: first.account_id },
        notification_configs: [subscriber('b', ['creative.status_changed'])],
      });
      assert.deepEqual(
        (((updated.body.accounts as Json[])[0] as Json).notification_configs as Json[]).map((c) => c.subscriber_id),
        ['b'],
      );
      const listed = await call('list_accounts', { account: { account_id: first.account_id } });
      assert.deepEqual(
        (listed.body.accounts as Json[]).map((a) => [a.account_id, (a.notification_configs as Json[]).length]),
        [[first.account_id, 1]],
      );
      const scheduled = await sync({
        ...owner,
        billing: 'operator',
        notification_configs: [subscriber('c', ['scheduled'])],
      });
      const refused = (scheduled.body.accounts as Json[])[0] as Json;
      assert.deepEqual(
        [refused.action, refused.status, (refused.errors as Json[])[0]?.field],
        ['failed', 'rejected', 'notification_configs[0].event_types[0]'],
      );
      for (const url of [
        'http://buyer.example/hooks/x',
        'https://169.254.169.254/latest',
        'https://u:p@buyer.example/',
      ]) {
        const bad = await sync({
          ...owner,
          billing: 'operator',
          notification_configs: [{ ...subscriber('x', ['creative.purged']), url }],
        });
        const entry = (bad.body.accounts as Json[])[0] as Json;
        assert.deepEqual(
          [entry.action, (entry.errors as Json[])[0]?.field],
          ['failed', 'notification_configs[0].url'],
          url,
        );
      }
      const twice = await sync({
        ...owner,
        billing: 'operator',
        notification_configs: [subscriber('d', ['creative.purged']), subscriber('d', ['creative.purged'])],
      });
      assert.equal(
        (((twice.body.accounts as Json[])[0] as Json).errors as Json[])[0]?.field,
        'notification_configs[1].subscriber_id',
      );
      assert.equal(
        (await sync({ account: { account_id: 'acct_missing' }, payment_terms: 'net_30' })).code,
        'UNSUPPORTED_PROVISIONING',
      );
    });

    it('reports simulated delivery, lists formats, records feedback, and keeps principals apart', async () => {
      const created = await create({ account: { brand: { domain: 'd.example' }, operator: 'd.example' } });
      const id = created.body.media_buy_id as string;
      await control('simulate_delivery', {
        media_buy_id: id,
        impressions: 1000,
        clicks: 10,
        reported_spend: { amount: 12, currency: 'USD' },
      });
      const delivery = await call('get_media_buy_delivery', { media_buy_ids: [id] });
      const totals = ((delivery.body.media_buy_deliveries as Json[])[0] as Json).totals as Json;
      assert.deepEqual(totals, { impressions: 1000, spend: 12, clicks: 10, cpm: 12, ctr: 0.01, cost_per_click: 1.2 });
      await control('simulate_delivery', {
        media_buy_id: id,
        impressions: 1000,
        viewability: { measurable_impressions: 1800, viewable_impressions: 1500, viewable_rate: 0.83, standard: 'mrc' },
      });
      const again = await call('get_media_buy_delivery', { media_buy_ids: [id] });
      const summed = ((again.body.media_buy_deliveries as Json[])[0] as Json).totals as Json;
      assert.deepEqual([summed.impressions, (summed.viewability as Json).viewable_rate], [2000, 0.83]);
      assert.equal((await call('get_media_buy_delivery', { media_buy_ids: ['mb_nope'] })).code, 'MEDIA_BUY_NOT_FOUND');
      const formats = await call('list_creative_formats', { format_ids: [FORMAT] });
      assert.deepEqual(((formats.body.formats as Json[])[0] as Json).format_id, FORMAT);
      const feedback = await call('provide_performance_feedback', {
        media_buy_id: id,
        idempotency_key: key(),
        measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' },
        performance_index: 1.2,
      });
      assert.equal(feedback.body.success, true);
      // Another principal (the records are principal-scoped) does not see the buy.
      assert.equal(await served.records.get('someone-else', 'media_buy', id), undefined);
    });
  });
}

describe('media-buy kit proposals over time', () => {
  it('refuses a committed proposal once its hold has lapsed (PROPOSAL_EXPIRED), and finalizes it again', async () => {
    let clock = Date.parse('2026-06-01T00:00:00Z');
    const kit = createMediaBuyKit({
      records: new MemoryKitRecords(),
      now: () => clock,
      seller: {
        products: () => PRODUCTS,
        proposalHoldMs: 60_000,
        proposalRequiresSignature: false,
        propose: () => [{ name: 'Plan', allocations: [{ product_id: 'news_display', allocation_percentage: 100 }] }],
      },
    });
    const ctx = { principal: 'p', protocol: 'mcp' } as unknown as ToolContext;
    const tool = (name: string) => kit.tools.find((t) => t.name === name) as AdcpToolDefinition;
    const brief = await tool('get_products').handler({ buying_mode: 'brief', brief: 'x' }, ctx);
    const id = (brief.proposals as Json[])[0]?.proposal_id as string;
    const finalize = () =>
      tool('get_products').handler(
        { buying_mode: 'refine', refine: [{ scope: 'proposal', proposal_id: id, action: 'finalize' }] },
        ctx,
      );
    await finalize();
    const execute = async () =>
      await tool('create_media_buy').handler(
        {
          account,
          proposal_id: id,
          total_budget: { amount: 1000, currency: 'USD' },
          start_time: 'asap',
          end_time: '2099-06-30T23:59:59Z',
          idempotency_key: key(),
        },
        ctx,
      );
    clock += 60_001;
    await assert.rejects(execute(), (e: Error & { code?: string }) => e.code === 'PROPOSAL_EXPIRED');
    await finalize();
    assert.equal(typeof (await execute()).media_buy_id, 'string');
  });
});

describe('media-buy kit reads', () => {
  it('finds a named buy past the first 1000 of a principal (get_media_buys, get_media_buy_delivery)', async () => {
    const records = new MemoryKitRecords();
    const kit = createMediaBuyKit({ records, seller: { products: () => PRODUCTS } });
    const body = (id: string) => ({ media_buy_id: id, status: 'active', currency: 'USD', packages: [] });
    for (let i = 0; i < 1001; i += 1) {
      const id = `mb_${String(i).padStart(5, '0')}`;
      assert.ok(await records.put('p', 'media_buy', id, body(id), 0));
    }
    const ctx = { principal: 'p', protocol: 'mcp' } as unknown as ToolContext;
    const tool = (name: string) => kit.tools.find((t) => t.name === name) as AdcpToolDefinition;
    const listed = await tool('get_media_buys').handler({ media_buy_ids: ['mb_01000', 'mb_00000'] }, ctx);
    assert.deepEqual(
      (listed.media_buys as Json[]).map((b) => b.media_buy_id),
      ['mb_00000', 'mb_01000'],
    );
    const delivery = await tool('get_media_buy_delivery').handler({ media_buy_ids: ['mb_01000'] }, ctx);
    assert.equal(((delivery.media_buy_deliveries as Json[])[0] as Json).media_buy_id, 'mb_01000');
  });
});
