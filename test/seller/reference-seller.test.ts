import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import {
  creativesRequest,
  mediaBuyRequest,
  packageRequest,
  productsRequest,
  SAMPLE_ACCOUNT,
} from '../../src/seller/sample-requests.js';

type Json = { [key: string]: unknown };

describe('startReferenceSeller', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-seller-'));
  const dbPath = join(dir, 'seller.db');
  const hooks: { config: Json; payload: Json }[] = [];
  let seller: ListeningAdcpServer;
  const clients: Client[] = [];

  const start = () =>
    startReferenceSeller({
      dbPath,
      validateResponses: 'strict',
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      sendWebhook: async (config, payload) => {
        hooks.push({ config, payload });
      },
    });
  const connect = async (headers: Record<string, string> = {}): Promise<Client> => {
    const client = new Client({ name: 'seller-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl), { requestInit: { headers } }));
    clients.push(client);
    return client;
  };
  const call = async (tool: string, args: Json, headers: Record<string, string> = {}) => {
    const client = await connect(headers);
    const result = await client.callTool({ name: tool, arguments: args });
    return { isError: result.isError === true, body: result.structuredContent as Json };
  };
  const waitForStatus = async (taskId: unknown, wanted: string): Promise<Json> => {
    let body: Json = {};
    for (let i = 0; i < 200; i += 1) {
      body = (await call('get_task_status', { task_id: taskId, include_result: true })).body;
      if (body.status === wanted) return body;
      await new Promise((r) => setTimeout(r, 10));
    }
    return body;
  };

  before(async () => {
    seller = await start();
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers get_adcp_capabilities with the media_buy protocol', async () => {
    const { body } = await call('get_adcp_capabilities', {});
    assert.deepEqual(body.supported_protocols, ['media_buy']);
  });

  it('ranks products by the brief and applies hard filters', async () => {
    const { body } = await call(
      'get_products',
      productsRequest('live sports on CTV', { filters: { channels: ['ctv'] } }),
    );
    const ids = (body.products as Json[]).map((p) => p.product_id);
    assert.deepEqual(ids, ['ctv_premium_sports', 'ctv_entertainment']);
    const cheap = await call('get_products', productsRequest(undefined, { filters: { max_cpm: 5 } }));
    assert.deepEqual(
      (cheap.body.products as Json[]).map((p) => p.product_id),
      ['display_ron'],
    );
  });

  it('moves a media buy submitted -> working -> completed with webhooks echoing operation_id and context', async () => {
    hooks.length = 0;
    const { body } = await call(
      'create_media_buy',
      mediaBuyRequest([packageRequest('olv_pets', 1000)], {
        idempotency_key: 'key-0001-reference',
        po_number: 'q1',
        context: { trace: 'abc' },
        push_notification_config: { url: 'http://127.0.0.1:9/hook', operation_id: 'op-1' },
      }),
    );
    assert.equal(body.status, 'submitted');
    const done = await waitForStatus(body.task_id, 'completed');
    assert.equal(done.status, 'completed');
    const result = done.result as Json;
    assert.match(String(result.media_buy_id), /^mb_/);
    for (let i = 0; i < 100 && hooks.length < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(
      hooks.map((h) => h.payload.status),
      ['working', 'completed'],
    );
    for (const hook of hooks) {
      assert.equal(hook.payload.operation_id, 'op-1');
      assert.equal(hook.payload.task_id, body.task_id);
      assert.equal(hook.payload.task_type, 'create_media_buy');
      assert.deepEqual(hook.payload.context, { trace: 'abc' });
    }
    assert.equal((hooks[1]!.payload.result as Json).media_buy_id, result.media_buy_id);
  });

  it('replays a create_media_buy with the same idempotency_key instead of creating another', async () => {
    const request = mediaBuyRequest([packageRequest('display_ron', 100)], { idempotency_key: 'key-0002-reference' });
    const first = await call('create_media_buy', request);
    const again = await call('create_media_buy', request);
    assert.equal(again.body.task_id, first.body.task_id);
    assert.equal(again.body.replayed, true);
  });

  it('refuses an unknown product with PRODUCT_NOT_FOUND', async () => {
    const { isError, body } = await call(
      'create_media_buy',
      mediaBuyRequest([packageRequest('nope', 100)], { idempotency_key: 'key-0003-reference' }),
    );
    assert.equal(isError, true);
    assert.equal((body.adcp_error as Json).code, 'PRODUCT_NOT_FOUND');
  });

  it('fails a media buy in review when po_number asks for [reject]', async () => {
    const { body } = await call(
      'create_media_buy',
      mediaBuyRequest([packageRequest('display_ron', 100)], {
        idempotency_key: 'key-0004-reference',
        po_number: 'x [reject]',
      }),
    );
    const done = await waitForStatus(body.task_id, 'failed');
    assert.equal((done.error as Json).code, 'POLICY_VIOLATION');
  });

  it('rate-limits the first call of a [rate-limit-once] brief, then succeeds', async () => {
    const first = await call('get_products', productsRequest('pets [rate-limit-once]'));
    const second = await call('get_products', productsRequest('pets [rate-limit-once]'));
    assert.deepEqual(first.body.adcp_error, {
      code: 'RATE_LIMITED',
      message: 'Request rate exceeded',
      recovery: 'transient',
      retry_after: 1,
    });
    assert.equal(second.isError, false);
  });

  it('fails any tool on demand through the x-adcp-fail header', async () => {
    const { isError, body } = await call('list_creatives', {}, { 'x-adcp-fail': 'SERVICE_UNAVAILABLE' });
    assert.equal(isError, true);
    assert.equal((body.adcp_error as Json).recovery, 'transient');
  });

  it('syncs creatives and lists them back', async () => {
    const synced = await call(
      'sync_creatives',
      creativesRequest([{ creative_id: 'c1', name: 'Spot' }, { creative_id: 'c2' }], {
        idempotency_key: 'key-0005-reference',
      }),
    );
    assert.deepEqual(synced.body.creatives, [
      { creative_id: 'c1', action: 'created', status: 'approved' },
      { creative_id: 'c2', action: 'created', status: 'approved' },
    ]);
    const again = await call(
      'sync_creatives',
      creativesRequest([{ creative_id: 'c1' }], { idempotency_key: 'key-0006-reference' }),
    );
    assert.deepEqual(again.body.creatives, [{ creative_id: 'c1', action: 'updated', status: 'approved' }]);
    // Newest created first (list-creatives-request.json), ties by creative_id: c1's re-sync keeps its created_date.
    const listed = await call('list_creatives', {});
    assert.deepEqual(
      (listed.body.creatives as Json[]).map((c) => c.creative_id),
      ['c2', 'c1'],
    );
  });

  it('fails, after a crash and restart, a media buy whose approval the previous process never finished', async () => {
    // A crash leaves the task `submitted` in the file with no process to finish it; its lease
    // (10 s by default) lapsed while the seller was down.
    const orphaned = new SqliteTaskStore({ path: dbPath, sweepIntervalMs: 0 });
    const created = await orphaned.create({
      owner: 'principal:anonymous@127.0.0.1',
      kind: 'adcp',
      taskType: 'create_media_buy',
      status: 'submitted',
      now: Date.now() - 11_000,
    });
    await orphaned.close();
    assert.equal(created.ok, true);
    const taskId = created.ok ? created.task.taskId : '';
    for (const client of clients.splice(0)) await client.close();
    await seller.close();
    seller = await start();
    const { body } = await call('get_task_status', { task_id: taskId });
    assert.equal(body.status, 'failed');
    assert.equal((body.error as Json).code, 'SERVICE_UNAVAILABLE');
  });

  it('reports delivery for a completed media buy and keeps it across a restart', async () => {
    const { body } = await call(
      'create_media_buy',
      mediaBuyRequest([packageRequest('audio_podcasts', 5)], { idempotency_key: 'key-0007-reference' }),
    );
    const done = await waitForStatus(body.task_id, 'completed');
    const id = (done.result as Json).media_buy_id;
    for (const client of clients.splice(0)) await client.close();
    await seller.close();
    seller = await start();
    const delivery = await call('get_media_buy_delivery', { account: SAMPLE_ACCOUNT, media_buy_ids: [id] });
    const rows = delivery.body.media_buy_deliveries as Json[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.media_buy_id, id);
    // Nothing was simulated (comply_test_controller simulate_delivery): the kit reports none yet.
    assert.equal((rows[0]!.totals as Json).impressions, 0);
    assert.equal(rows[0]?.status, 'pending_creatives');
  });
});
