// Issue 31, item 2: `adcp serve` plays realistic sellers for buyers who test against it:
// manual approval (--approval manual: a buy stays submitted until comply_test_controller decides
// it), slow confirmation (--review-time) and a rate limit (--rate-limit: RATE_LIMITED with
// retry_after, error-handling.md "Rate limit handling").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { mediaBuyRequest, packageRequest, productsRequest } from '../../src/seller/sample-requests.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';

type Json = Record<string, unknown>;

describe('adcp serve seller modes', () => {
  const serves: ServeProcess[] = [];
  const clients: AdcpClient[] = [];
  const open = (serve: ServeProcess) => {
    const client = new AdcpClient({ url: serve.mcp, protocol: 'mcp', retry: false });
    clients.push(client);
    return client;
  };
  after(async () => {
    for (const client of clients) await client.close();
    for (const serve of serves) await serve.stop();
  });

  describe('--approval manual', () => {
    let client: AdcpClient;
    before(async () => {
      const serve = await spawnServe(['--test-controller', '--approval', 'manual', '--review-time', '0.2']);
      serves.push(serve);
      client = open(serve);
    });

    const status = async (taskId: string) =>
      (await client.call('get_task_status', { task_id: taskId, include_result: true })).data;
    const control = async (params: Json) =>
      (await client.call('comply_test_controller', { scenario: 'force_media_buy_status', params })).data as Json;
    const submit = async (po: string) => {
      const created = await client.call(
        'create_media_buy',
        mediaBuyRequest([packageRequest('display_ron', 500)], { po_number: po }),
      );
      assert.equal(created.status, 'submitted', JSON.stringify(created.data));
      const id = /mb_[0-9a-f]{16}/.exec(created.message ?? '')?.[0];
      assert.ok(id !== undefined, `the submitted message names the media buy: ${created.message}`);
      return { taskId: created.taskId!, id };
    };
    const settled = async (taskId: string) => {
      for (let i = 0; i < 50; i++) {
        const now = await status(taskId);
        if (now?.status !== 'submitted' && now?.status !== 'working') return now;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return status(taskId);
    };

    it('keeps a buy submitted past the review time until the controller approves it', async () => {
      const { taskId, id } = await submit('PO-manual-1');
      await new Promise((resolve) => setTimeout(resolve, 800));
      assert.match(String((await status(taskId))?.status), /^(submitted|working)$/);
      const approved = await control({ media_buy_id: id, status: 'active' });
      assert.equal(approved.success, true, JSON.stringify(approved));
      const done = await settled(taskId);
      assert.equal(done?.status, 'completed', JSON.stringify(done));
      assert.equal((done?.result as Json | undefined)?.media_buy_id, id);
    });

    it('fails the buy when the controller rejects it, with the reason given', async () => {
      const { taskId, id } = await submit('PO-manual-2');
      const rejected = await control({ media_buy_id: id, status: 'rejected', rejection_reason: 'No inventory left' });
      assert.equal(rejected.success, true, JSON.stringify(rejected));
      const done = await settled(taskId);
      assert.equal(done?.status, 'failed', JSON.stringify(done));
      assert.match(JSON.stringify(done?.error), /No inventory left/);
    });
  });

  describe('--rate-limit and --review-time', () => {
    let client: AdcpClient;
    before(async () => {
      const serve = await spawnServe(['--rate-limit', '2', '--review-time', '0.6']);
      serves.push(serve);
      client = open(serve);
    });

    it('confirms a buy after the review time, then answers RATE_LIMITED with retry_after past N calls a minute', async () => {
      const created = await client.call('create_media_buy', mediaBuyRequest([packageRequest('display_news', 900)]));
      assert.equal(created.status, 'submitted');
      const early = await client.call('get_task_status', { task_id: created.taskId! });
      assert.match(String(early.data?.status), /^(submitted|working)$/, 'not confirmed before the review time');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const late = await client.call('get_task_status', { task_id: created.taskId! });
      assert.equal(late.data?.status, 'completed', JSON.stringify(late.data));
      assert.equal((await client.call('get_products', productsRequest('news'))).status, 'completed');
      const limited = await client.call('get_products', productsRequest('news'));
      assert.equal(limited.status, 'failed');
      assert.equal(limited.error?.code, 'RATE_LIMITED');
      assert.equal(limited.error?.recovery, 'transient');
      const retryAfter = limited.error?.adcpError?.retry_after ?? 0;
      assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      assert.deepEqual(limited.error?.adcpError?.details, {
        limit: 2,
        remaining: 0,
        window_seconds: 60,
        scope: 'account',
      });
    });
  });
});
