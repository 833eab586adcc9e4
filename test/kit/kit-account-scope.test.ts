// sync_catalogs, sync_audiences and sync_event_sources name the account that owns the records
// (sync-*-request.json: "Account that owns these catalogs", ...): one principal with two accounts
// keeps each account's records apart (decision 0321). Served by createAdcpServer, called with the
// official MCP client, every answer checked against the 3.1 response schemas (validateResponses:
// strict), over records in memory, in a real SQLite file and in PostgreSQL (ADCP_TEST_PG_URL).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { FORMAT, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

const A = { brand: { domain: 'alpine-scope.example' }, operator: 'pinnacle-agency.example' };
const B = { brand: { domain: 'birch-scope.example' }, operator: 'pinnacle-agency.example' };

let keys = 0;
const key = () => `scope-test-key-${String(++keys).padStart(6, '0')}`;
const pairs = (list: unknown, id: string, field: string) => (list as Json[]).map((e) => [e[id], e[field]]);

for (const store of KIT_STORES) {
  describe(`account-scoped buyer data over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    before(async () => {
      served = await serveKit(
        (records) =>
          createMediaBuyKit({
            records,
            seller: { products: () => [kitProduct()], formats: [{ format_id: FORMAT, name: 'Medium rectangle' }] },
          }),
        store,
      );
    });
    after(() => served.close());

    /** A successful answer's body (the harness validated it against the response schema). */
    const ok = async (name: string, args: Json): Promise<Json> => {
      const answer = await served.call(name, { idempotency_key: key(), ...args });
      assert.equal(answer.isError, false, `${name}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const create = (account: Json, pkg: Json) =>
      served.call('create_media_buy', {
        account,
        brand: account.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: [{ product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 5000, ...pkg }],
        idempotency_key: key(),
      });

    it('sync_catalogs: the same id in two accounts, listing and delete_missing per account', async () => {
      const sync = (account: Json, extra: Json) => ok('sync_catalogs', { account, ...extra });
      const items = (n: number) => Array.from({ length: n }, (_, i) => ({ item_id: `sku_${i}`, title: `Item ${i}` }));
      const inA = await sync(A, {
        catalogs: [
          { catalog_id: 'shared', type: 'product', items: items(2) },
          { catalog_id: 'only_a', type: 'product', items: items(1) },
        ],
      });
      assert.deepEqual(pairs(inA.catalogs, 'catalog_id', 'action'), [
        ['shared', 'created'],
        ['only_a', 'created'],
      ]);
      const inB = await sync(B, {
        catalogs: [
          { catalog_id: 'shared', type: 'product', items: items(3) },
          { catalog_id: 'only_b', type: 'product', items: items(1) },
        ],
      });
      // Another account's id is a new catalog, not an update of A's.
      assert.deepEqual(pairs(inB.catalogs, 'catalog_id', 'action'), [
        ['shared', 'created'],
        ['only_b', 'created'],
      ]);
      // Listing shows the account's own catalogs, with its own item counts.
      assert.deepEqual(pairs((await sync(A, {})).catalogs, 'catalog_id', 'item_count'), [
        ['only_a', 1],
        ['shared', 2],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).catalogs, 'catalog_id', 'item_count'), [
        ['only_b', 1],
        ['shared', 3],
      ]);
      // delete_missing in A deletes A's only_a and nothing of B.
      const pruned = await sync(A, {
        catalogs: [{ catalog_id: 'shared', type: 'product', items: items(2) }],
        delete_missing: true,
      });
      assert.deepEqual(pairs(pruned.catalogs, 'catalog_id', 'action'), [
        ['shared', 'unchanged'],
        ['only_a', 'deleted'],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).catalogs, 'catalog_id', 'item_count'), [
        ['only_b', 1],
        ['shared', 3],
      ]);
      assert.deepEqual(pairs((await sync(A, {})).catalogs, 'catalog_id', 'item_count'), [['shared', 2]]);
    });

    it('sync_audiences: the same id in two accounts, listing, delete_missing, targeting per account', async () => {
      const sync = (account: Json, extra: Json) => ok('sync_audiences', { account, ...extra });
      const members = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ external_id: `c${i}`, hashed_email: i.toString(16).padStart(64, '0') }));
      const audience = (audience_id: string, n: number) => ({ audience_id, audience_type: 'crm', add: members(n) });
      const inA = await sync(A, { audiences: [audience('shared', 2), audience('only_a', 1)] });
      assert.deepEqual(pairs(inA.audiences, 'audience_id', 'action'), [
        ['shared', 'created'],
        ['only_a', 'created'],
      ]);
      const inB = await sync(B, { audiences: [audience('shared', 3), audience('only_b', 1)] });
      assert.deepEqual(pairs(inB.audiences, 'audience_id', 'action'), [
        ['shared', 'created'],
        ['only_b', 'created'],
      ]);
      assert.deepEqual(pairs((await sync(A, {})).audiences, 'audience_id', 'total_uploaded_count'), [
        ['only_a', 1],
        ['shared', 2],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).audiences, 'audience_id', 'total_uploaded_count'), [
        ['only_b', 1],
        ['shared', 3],
      ]);
      // A buy's targeting names audiences of its own account only.
      const onlyB = await create(A, { targeting_overlay: { audience_include: ['only_b'] } });
      assert.deepEqual(
        [onlyB.code, onlyB.error?.field],
        ['INVALID_REQUEST', 'packages[0].targeting_overlay.audience_include[0]'],
      );
      const own = await create(B, { targeting_overlay: { audience_include: ['only_b'] } });
      assert.equal(own.isError, false, JSON.stringify(own.body));
      // So does a package update's new targeting (package-update.json targeting_overlay).
      const retarget = (audience: string) =>
        served.call('update_media_buy', {
          account: B,
          idempotency_key: key(),
          media_buy_id: own.body.media_buy_id,
          packages: [
            {
              package_id: (own.body.packages as Json[])[0]?.package_id,
              targeting_overlay: { audience_include: [audience] },
            },
          ],
        });
      const foreign = await retarget('only_a');
      assert.deepEqual(
        [foreign.code, foreign.error?.field],
        ['INVALID_REQUEST', 'packages[0].targeting_overlay.audience_include[0]'],
      );
      const retargeted = await retarget('shared');
      assert.equal(retargeted.isError, false, JSON.stringify(retargeted.body));
      // delete_missing in A: A's only_a goes, B's audiences stay.
      const pruned = await sync(A, { audiences: [{ audience_id: 'shared' }], delete_missing: true });
      assert.deepEqual(pairs(pruned.audiences, 'audience_id', 'action'), [
        ['shared', 'unchanged'],
        ['only_a', 'deleted'],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).audiences, 'audience_id', 'total_uploaded_count'), [
        ['only_b', 1],
        ['shared', 3],
      ]);
    });

    it('sync_event_sources: the same id in two accounts, listing, delete_missing, goals and log_event per account', async () => {
      const sync = (account: Json, extra: Json) => ok('sync_event_sources', { account, ...extra });
      const source = (event_source_id: string, name: string) => ({
        event_source_id,
        name,
        event_types: ['purchase'],
      });
      const inA = await sync(A, { event_sources: [source('shared', 'A pixel'), source('only_a', 'A server')] });
      assert.deepEqual(pairs(inA.event_sources, 'event_source_id', 'action'), [
        ['shared', 'created'],
        ['only_a', 'created'],
      ]);
      const inB = await sync(B, { event_sources: [source('shared', 'B pixel'), source('only_b', 'B server')] });
      assert.deepEqual(pairs(inB.event_sources, 'event_source_id', 'action'), [
        ['shared', 'created'],
        ['only_b', 'created'],
      ]);
      // Without event_sources the call lists the account's own (discovery-only).
      assert.deepEqual(pairs((await sync(A, {})).event_sources, 'event_source_id', 'name'), [
        ['only_a', 'A server'],
        ['shared', 'A pixel'],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).event_sources, 'event_source_id', 'name'), [
        ['only_b', 'B server'],
        ['shared', 'B pixel'],
      ]);
      // An optimization goal names sources of the buy's own account only.
      const goal = (id: string) => ({
        optimization_goals: [
          { kind: 'event', event_sources: [{ event_source_id: id, event_type: 'purchase' }], priority: 1 },
        ],
      });
      const foreign = await create(B, goal('only_a'));
      assert.deepEqual(
        [foreign.code, foreign.error?.field],
        ['INVALID_REQUEST', 'packages[0].optimization_goals[0].event_sources[0].event_source_id'],
      );
      const own = await create(A, goal('only_a'));
      assert.equal(own.isError, false, JSON.stringify(own.body));
      // log_event: events are de-duplicated within the source's account, not across accounts.
      const log = (extra: Json) =>
        served.call('log_event', {
          idempotency_key: key(),
          events: [{ event_id: 'evt_1', event_type: 'purchase', event_time: '2026-06-05T14:30:00Z' }],
          ...extra,
        });
      const fromA = await log({ account: A, event_source_id: 'shared' });
      assert.deepEqual([fromA.body.events_received, fromA.body.events_processed], [1, 1], JSON.stringify(fromA.body));
      const fromB = await log({ account: B, event_source_id: 'shared' });
      assert.deepEqual([fromB.body.events_received, fromB.body.events_processed], [1, 1], JSON.stringify(fromB.body));
      const again = await log({ account: B, event_source_id: 'only_b' });
      assert.deepEqual([again.body.events_received, again.body.events_processed], [1, 0], 'a repeat within B');
      // Without account, the one account holding the id is the source's; two are ambiguous.
      assert.equal((await log({ event_source_id: 'only_a' })).body.events_received, 1);
      const ambiguous = await log({ event_source_id: 'shared' });
      assert.deepEqual([ambiguous.code, ambiguous.error?.field], ['ACCOUNT_AMBIGUOUS', 'event_source_id']);
      assert.equal((await log({ account: A, event_source_id: 'only_b' })).code, 'REFERENCE_NOT_FOUND');
      // delete_missing in A: A's only_a goes, B's sources stay.
      const pruned = await sync(A, { event_sources: [source('shared', 'A pixel')], delete_missing: true });
      assert.deepEqual(pairs(pruned.event_sources, 'event_source_id', 'action'), [
        ['shared', 'unchanged'],
        ['only_a', 'deleted'],
      ]);
      assert.deepEqual(pairs((await sync(B, {})).event_sources, 'event_source_id', 'name'), [
        ['only_b', 'B server'],
        ['shared', 'B pixel'],
      ]);
    });
  });
}
