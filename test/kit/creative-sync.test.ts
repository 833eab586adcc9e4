// The kit's sync_creatives honours the 3.1 request options (issue 31, decision 0311): dry_run,
// delete_missing, assignments (through update_media_buy's rules), validation_mode and
// creative_ids. Served by createAdcpServer, called with the official MCP client, every answer
// checked against the 3.1 response schemas (validateResponses: strict), over records in memory,
// in a real SQLite file and in PostgreSQL (when ADCP_TEST_PG_URL is set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { account as acme, FORMAT, KIT_STORES, kitProduct, serveKit, type Json, type ServedKit } from './kit-harness.js';

const xco = { brand: { domain: 'xco.example' }, operator: 'pinnacle-agency.example' };
const yco = { brand: { domain: 'yco.example' }, operator: 'pinnacle-agency.example' };
const creative = (creative_id: string, name = creative_id) => ({ creative_id, name, format_id: FORMAT, assets: {} });

for (const store of KIT_STORES) {
  describe(`sync_creatives request options over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    let keys = 0;
    const key = () => `creative-sync-key-${String(++keys).padStart(6, '0')}`;
    let buyId = '';
    let [live, other, canceled] = ['', '', ''];

    const sync = (args: Json) => served.call('sync_creatives', { account: acme, idempotency_key: key(), ...args });
    const ok = async (name: string, args: Json) => {
      const answer = await served.call(name, args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const synced = async (args: Json) => {
      const answer = await sync(args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body.creatives as Json[];
    };
    const library = async (args: Json = {}) =>
      Object.fromEntries(
        ((await ok('list_creatives', args)).creatives as Json[]).map((c) => [c.creative_id as string, c]),
      );
    const theBuy = async () => ((await ok('get_media_buys', { media_buy_ids: [buyId] })).media_buys as Json[])[0]!;
    const assigned = async (packageId: string) =>
      ((await theBuy()).packages as Json[]).find((p) => p.package_id === packageId)?.creative_assignments;

    before(async () => {
      served = await serveKit(
        (records) =>
          createMediaBuyKit({
            records,
            seller: {
              products: () => [kitProduct()],
              checkCreative: (c) =>
                c.name === 'refused'
                  ? { code: 'CREATIVE_REJECTED', message: 'Not for this site.', field: 'name' }
                  : true,
            },
          }),
        store,
      );
      const created = await ok('create_media_buy', {
        account: acme,
        brand: acme.brand,
        start_time: 'asap',
        end_time: '2099-06-30T23:59:59Z',
        packages: [1, 2, 3].map(() => ({ product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 1000 })),
        idempotency_key: key(),
      });
      buyId = created.media_buy_id as string;
      [live, other, canceled] = (created.packages as Json[]).map((p) => p.package_id as string) as [
        string,
        string,
        string,
      ];
      await ok('update_media_buy', {
        account: acme,
        media_buy_id: buyId,
        packages: [{ package_id: canceled, canceled: true }],
        idempotency_key: key(),
      });
    });
    after(() => served.close());

    it('dry_run answers what would change and writes nothing', async () => {
      await synced({ creatives: [creative('cr_keep', 'Keep')] });
      const body = (await sync({
        dry_run: true,
        creatives: [creative('cr_keep', 'Renamed'), creative('cr_new')],
        assignments: [{ creative_id: 'cr_new', package_id: live }],
      })) as { isError: boolean; body: Json };
      assert.equal(body.isError, false, JSON.stringify(body.body));
      assert.deepEqual(body.body.dry_run, true);
      assert.deepEqual(body.body.creatives, [
        { creative_id: 'cr_keep', action: 'updated', status: 'approved' },
        { creative_id: 'cr_new', action: 'created', status: 'approved', assigned_to: [live] },
      ]);
      const shown = await library();
      assert.equal(shown.cr_new, undefined);
      assert.equal(shown.cr_keep?.name, 'Keep');
      assert.deepEqual(await assigned(live), []);
      assert.equal((await theBuy()).status, 'pending_creatives');
      // A sync that is not a dry run says nothing of one.
      const real = await sync({ creatives: [creative('cr_keep', 'Keep')] });
      assert.equal(real.body.dry_run, undefined);
    });

    it('validation_mode strict refuses the whole batch; lenient writes the valid creatives', async () => {
      const refused = await sync({ creatives: [creative('cr_ok1'), creative('cr_bad', 'refused')] });
      assert.equal(refused.isError, true);
      assert.deepEqual([refused.error?.code, refused.error?.field], ['CREATIVE_REJECTED', 'creatives[1].name']);
      const twice = await sync({ validation_mode: 'strict', creatives: [creative('cr_ok1'), creative('cr_ok1')] });
      assert.deepEqual([twice.error?.code, twice.error?.field], ['INVALID_REQUEST', 'creatives[1].creative_id']);
      assert.equal((await library()).cr_ok1, undefined, 'strict: nothing written');

      const results = await synced({
        validation_mode: 'lenient',
        creatives: [creative('cr_ok1'), creative('cr_bad', 'refused'), creative('cr_ok1')],
      });
      assert.deepEqual(results[0], { creative_id: 'cr_ok1', action: 'created', status: 'approved' });
      assert.deepEqual(
        results.slice(1).map((r) => [r.creative_id, r.action, r.status, (r.errors as Json[])[0]?.code]),
        [
          ['cr_bad', 'failed', undefined, 'CREATIVE_REJECTED'],
          ['cr_ok1', 'failed', undefined, 'INVALID_REQUEST'],
        ],
      );
      const shown = await library();
      assert.notEqual(shown.cr_ok1, undefined);
      assert.equal(shown.cr_bad, undefined);
    });

    it("assigns through update_media_buy's rules: strict refuses, lenient reports per package", async () => {
      const unknown = await sync({
        creatives: [creative('cr_asg')],
        assignments: [{ creative_id: 'cr_asg', package_id: 'pkg_nowhere' }],
      });
      assert.deepEqual([unknown.error?.code, unknown.error?.field], ['PACKAGE_NOT_FOUND', 'assignments[0].package_id']);
      const ended = await sync({
        creatives: [creative('cr_asg')],
        assignments: [{ creative_id: 'cr_asg', package_id: canceled }],
      });
      assert.deepEqual([ended.error?.code, ended.error?.field], ['INVALID_STATE', 'assignments[0].package_id']);
      const missing = await sync({
        creatives: [creative('cr_asg')],
        assignments: [{ creative_id: 'cr_never_synced', package_id: live }],
      });
      assert.deepEqual(
        [missing.error?.code, missing.error?.field],
        ['CREATIVE_NOT_FOUND', 'assignments[0].creative_id'],
      );
      assert.equal((await library()).cr_asg, undefined, 'strict: nothing written');
      assert.equal((await theBuy()).revision, 2);

      const results = await synced({
        validation_mode: 'lenient',
        creatives: [creative('cr_asg')],
        assignments: [
          { creative_id: 'cr_asg', package_id: live, weight: 60 },
          { creative_id: 'cr_asg', package_id: canceled },
          { creative_id: 'cr_asg', package_id: 'pkg_nowhere' },
        ],
      });
      assert.equal(results.length, 1);
      assert.deepEqual(results[0]?.assigned_to, [live]);
      assert.deepEqual(Object.keys(results[0]?.assignment_errors as Json).sort(), [canceled, 'pkg_nowhere'].sort());
      assert.deepEqual(await assigned(live), [{ creative_id: 'cr_asg', weight: 60 }]);
      const buy = await theBuy();
      // The approved creative starts the buy, as an update_media_buy assignment does.
      assert.deepEqual([buy.status, buy.revision], ['active', 3]);

      // A library creative assigned without being sent: its result says so, unchanged.
      const alone = await synced({
        creatives: [creative('cr_other')],
        assignments: [{ creative_id: 'cr_keep', package_id: other }],
      });
      assert.deepEqual(alone[1], {
        creative_id: 'cr_keep',
        action: 'unchanged',
        status: 'approved',
        assigned_to: [other],
      });
      assert.deepEqual(await assigned(other), [{ creative_id: 'cr_keep' }]);
      // Assigning again upserts: one entry per creative, the newer weight.
      await synced({
        creatives: [creative('cr_asg')],
        assignments: [{ creative_id: 'cr_asg', package_id: live, weight: 10 }],
      });
      assert.deepEqual(await assigned(live), [{ creative_id: 'cr_asg', weight: 10 }]);
    });

    it("delete_missing archives the account's other creatives only, never a live one", async () => {
      await synced({ account: yco, creatives: [creative('cr_y1')] });
      await synced({ account: xco, creatives: [creative('cr_x1'), creative('cr_x2'), creative('cr_x3')] });
      await synced({
        account: xco,
        creatives: [creative('cr_x2')],
        assignments: [{ creative_id: 'cr_x2', package_id: live }],
      });
      const both = await sync({
        account: xco,
        creatives: [creative('cr_x1')],
        creative_ids: ['cr_x1'],
        delete_missing: true,
      });
      assert.deepEqual([both.error?.code, both.error?.field], ['INVALID_REQUEST', 'delete_missing']);
      const strict = await sync({ account: xco, creatives: [creative('cr_x1')], delete_missing: true });
      assert.deepEqual([strict.error?.code, strict.error?.field], ['INVALID_STATE', 'delete_missing']);
      assert.equal((await library()).cr_x3?.status, 'approved', 'strict: nothing archived');

      const rehearsed = await sync({
        account: xco,
        creatives: [creative('cr_x1')],
        delete_missing: true,
        validation_mode: 'lenient',
        dry_run: true,
      });
      assert.equal(rehearsed.body.dry_run, true);
      assert.equal((await library()).cr_x3?.status, 'approved', 'dry run: nothing archived');

      const results = await synced({
        account: xco,
        creatives: [creative('cr_x1')],
        delete_missing: true,
        validation_mode: 'lenient',
      });
      assert.deepEqual(rehearsed.body.creatives, results);
      assert.deepEqual(
        results.map((r) => [r.creative_id, r.action, r.status, (r.errors as Json[] | undefined)?.[0]?.code]),
        [
          ['cr_x1', 'updated', 'approved', undefined],
          ['cr_x2', 'failed', undefined, 'INVALID_STATE'],
          ['cr_x3', 'deleted', undefined, undefined],
        ],
      );
      const shown = await library();
      assert.equal(shown.cr_x3, undefined, 'archived creatives leave the default list');
      assert.deepEqual(
        [shown.cr_x1?.status, shown.cr_x2?.status, shown.cr_y1?.status, shown.cr_keep?.status],
        ['approved', 'approved', 'approved', 'approved'],
      );
      assert.equal((await library({ filters: { statuses: ['archived'] } })).cr_x3?.status, 'archived');
    });

    it('creative_ids limits the sync to the creatives it names', async () => {
      const results = await synced({ creatives: [creative('cr_s1'), creative('cr_s2')], creative_ids: ['cr_s1'] });
      assert.deepEqual(results[0], { creative_id: 'cr_s1', action: 'created', status: 'approved' });
      assert.deepEqual([results[1]?.creative_id, results[1]?.action], ['cr_s2', 'unchanged']);
      assert.equal((await library()).cr_s2, undefined);
    });
  });
}
