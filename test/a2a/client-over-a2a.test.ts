// AdcpClient features on the A2A path: streaming progress, idempotency keys kept across a retry,
// the response byte cap.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient, type ProgressEvent } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { startServer, type TestServer } from './sdk-servers.js';
import { sellerScript, PRODUCTS } from './scripts.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer } from './raw-server.js';

describe('AdcpClient over A2A', () => {
  let server: TestServer;
  let raw: RawServer;
  let failuresLeft = 1;
  before(async () => {
    server = await startServer('v1', sellerScript());
    raw = await startRawServer((req, res, base) => {
      if (req.method === 'GET')
        return req.path === '/.well-known/agent-card.json' ? sendJson(res, v1Card(base)) : sendJson(res, {}, 404);
      if (failuresLeft > 0) {
        failuresLeft--;
        return sendJson(res, { error: 'busy' }, 503);
      }
      const params = req.body?.params as
        { message?: { parts?: { data?: { input?: Record<string, unknown> } }[] } } | undefined;
      const input = params?.message?.parts?.[0]?.data?.input ?? {};
      if (input['big'] === true)
        return sendJson(res, {
          jsonrpc: '2.0',
          id: req.body?.id,
          result: { task: v1Task({ blob: 'z'.repeat(100_000) }) },
        });
      sendJson(res, {
        jsonrpc: '2.0',
        id: req.body?.id,
        result: { task: v1Task({ status: 'completed', media_buy_id: 'mb_1' }) },
      });
    });
  });
  after(async () => {
    await server.close();
    await raw.close();
  });

  it('streams progress to onProgress and returns the final state', async () => {
    const client = new AdcpClient({ url: server.base, protocol: 'a2a', retry: false });
    try {
      const events: ProgressEvent[] = [];
      const result = await client.call('get_products', { brief: 'ctv' }, { onProgress: (e) => events.push(e) });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data, { ...PRODUCTS, context: {} });
      assert.deepEqual(
        events.map((e) => e.status),
        ['submitted', 'working', 'working', 'completed'],
      );
      assert.equal(server.calls.at(-1), 'SendStreamingMessage');
    } finally {
      await client.close();
    }
  });

  it('keeps the idempotency_key of a mutating call across a retry after HTTP 503', async () => {
    failuresLeft = 1;
    const client = new AdcpClient({
      url: raw.base,
      protocol: 'a2a',
      retry: { maxAttempts: 3, initialDelayMs: 1, maxDelayMs: 5 },
    });
    try {
      const before = raw.requests.length;
      const result = await client.call<string>('create_media_buy', { total_budget: 10 });
      assert.equal(result.status, 'completed');
      const posts = raw.requests.slice(before).filter((r) => r.method === 'POST');
      assert.equal(posts.length, 2);
      const keys = posts.map(
        (r) =>
          (r.body!.params as { message: { parts: { data: { input: { idempotency_key?: string } } }[] } }).message
            .parts[0]!.data.input.idempotency_key,
      );
      assert.equal(typeof keys[0], 'string');
      assert.equal(keys[0], keys[1]);
    } finally {
      await client.close();
    }
  });

  it('enforces the client response byte cap on the A2A path', async () => {
    failuresLeft = 0;
    const client = new AdcpClient({ url: raw.base, protocol: 'a2a', retry: false, maxResponseBytes: 10_000 });
    try {
      await assert.rejects(
        client.call<string>('get_products', { big: true }),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'response_too_large',
      );
    } finally {
      await client.close();
    }
  });
});
