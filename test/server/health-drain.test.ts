// createAdcpServer's probes (/healthz, /readyz) and its graceful close: readiness false first,
// work in progress finishes within the grace, what is left is cut short and counted.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer, type AdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';
import { gate, testTools } from './fixtures.js';

/** Mounts `adcp` in a server of the test's own, which outlives `adcp.close()`. */
async function mount(adcp: AdcpServer): Promise<{ base: string; close(): Promise<void> }> {
  const host: Server = createServer((req, res) => void adcp.handle(req, res));
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(host.address() as AddressInfo).port}`,
    close: async () => {
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    },
  };
}

async function readyz(base: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}/readyz`);
  return { status: response.status, body: await response.json() };
}

async function until(predicate: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A create_media_buy whose work runs until aborted. */
const endless: AdcpToolDefinition = {
  name: 'create_media_buy',
  description: 'Never finishes on its own.',
  mutating: false,
  handler: (_args, context) =>
    context.submit(
      ({ signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    ),
};

describe('createAdcpServer probes', () => {
  const adcp = createAdcpServer({ validateRequests: false, tools: testTools(), authenticate: () => null });
  let listening: Awaited<ReturnType<AdcpServer['listen']>>;
  after(() => adcp.close());

  it('answers /healthz and /readyz without credentials, and refuses the operations', async () => {
    listening = await adcp.listen();
    const health = await fetch(`${listening.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.deepEqual(await readyz(listening.url), { status: 200, body: { ready: true } });
    const mcp = await fetch(listening.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(mcp.status, 401);
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await fetch(`${listening.url}/readyz`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const post = await fetch(`${listening.url}/healthz`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  it('answers a probe that names the address in Host (a balancer probing an instance)', async () => {
    const port = new URL(listening.url).port;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/readyz', headers: { host: `10.1.2.3:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200);
  });
});

describe('createAdcpServer health.check', () => {
  it('is not ready while the check rejects, and ready again once it resolves', async () => {
    let up = false;
    const adcp = createAdcpServer({
      validateRequests: false,
      tools: testTools(),
      health: { check: async () => assert.ok(up), timeoutMs: 500 },
    });
    const listening = await adcp.listen();
    try {
      assert.deepEqual(await readyz(listening.url), { status: 503, body: { ready: false, reason: 'check_failed' } });
      up = true;
      await until(async () => (await readyz(listening.url)).status === 200, 'ready');
    } finally {
      await adcp.close();
    }
  });

  it('refuses a timeout that is not a positive number', () => {
    assert.throws(() => createAdcpServer({ tools: [], health: { timeoutMs: 0 } }), RangeError);
  });
});

describe('createAdcpServer close({ graceMs })', () => {
  it('turns readiness false at once and lets a running task finish within the grace', async () => {
    const approval = gate();
    const store = new MemoryTaskStore();
    const adcp = createAdcpServer({ validateRequests: false, tools: testTools({ approval: approval.promise }), store });
    const mounted = await mount(adcp);
    const client = new AdcpClient({ url: `${mounted.base}/mcp`, protocol: 'mcp' });
    try {
      await until(async () => (await readyz(mounted.base)).status === 200, 'ready');
      const buy = await client.call('create_media_buy', {});
      assert.equal(buy.status, 'submitted');
      const started = Date.now();
      const closing = adcp.close({ graceMs: 60_000 });
      assert.deepEqual(await readyz(mounted.base), { status: 503, body: { ready: false, reason: 'stopping' } });
      approval.open();
      const report = await closing;
      assert.deepEqual(report, { abortedTasks: 0, undeliveredWebhooks: 0 });
      assert.ok(Date.now() - started < 30_000, 'the drain ended when the work did, not at the grace');
      const owner = (await store.list(`principal:${'anonymous@127.0.0.1'}`)).tasks[0];
      assert.equal(owner?.status, 'completed');
    } finally {
      await client.close();
      await mounted.close();
    }
  });

  it('cuts short, fails and counts what is still running when the grace ends', async () => {
    const store = new MemoryTaskStore();
    const adcp = createAdcpServer({ validateRequests: false, tools: [endless], store });
    const listening = await adcp.listen();
    const client = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp' });
    try {
      const buy = await client.call('create_media_buy', {});
      assert.equal(buy.status, 'submitted');
      await client.close();
      const started = Date.now();
      const report = await adcp.close({ graceMs: 300 });
      assert.ok(Date.now() - started >= 290, 'waited for the grace');
      assert.deepEqual(report, { abortedTasks: 1, undeliveredWebhooks: 0 });
      const task = (await store.list('principal:anonymous@127.0.0.1')).tasks[0];
      assert.equal(task?.status, 'failed');
      await assert.rejects(fetch(`${listening.url}/healthz`), 'the listener is closed');
    } finally {
      await client.close();
    }
  });

  it('ends the drain at once when close() is called again without a grace', async () => {
    const adcp = createAdcpServer({ validateRequests: false, tools: [endless] });
    const listening = await adcp.listen();
    const client = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp' });
    await client.call('create_media_buy', {});
    await client.close();
    const started = Date.now();
    const first = adcp.close({ graceMs: 120_000 });
    const second = adcp.close();
    assert.equal(await first, await second);
    assert.ok(Date.now() - started < 30_000);
    assert.equal((await first).abortedTasks, 1);
  });
});
