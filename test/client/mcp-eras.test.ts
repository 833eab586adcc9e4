import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';
import { AdcpClient } from '../../src/client/index.js';
import { createTransport } from '../../src/client/create-transport.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

/** An SDK v2 server (`createMcpHandler`) with one tool, on 127.0.0.1. */
async function startV2Server(legacy: 'stateless' | 'reject'): Promise<{ url: string; close(): Promise<void> }> {
  const factory = () => {
    const server = new McpServer({ name: 'v2-seller', version: '1.0.0' });
    server.registerTool(
      'get_products',
      { description: 'Products.', inputSchema: z.looseObject({ brief: z.string().optional() }) },
      (args) => ({
        content: [{ type: 'text', text: 'Found 1 product' }],
        structuredContent: { status: 'completed', products: [{ product_id: 'p1', brief: args.brief ?? null }] },
      }),
    );
    return server;
  };
  const handler = createMcpHandler(factory, { legacy });
  const node = toNodeHandler(handler);
  const http: HttpServer = createServer((req, res) => void node(req as Parameters<typeof node>[0], res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** A fetch that records `POST <method>` (or `GET`) for every request it sends. */
function recordingFetch(): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  const recorder: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
    sent.push(`${init?.method ?? 'GET'} ${body.method ?? ''}`.trim());
    return fetch(input, init);
  };
  return { fetch: recorder, sent };
}

for (const legacy of ['stateless', 'reject'] as const) {
  describe(`AdcpClient against an SDK v2 server (legacy: '${legacy}')`, () => {
    let server: { url: string; close(): Promise<void> };
    before(async () => {
      server = await startV2Server(legacy);
    });
    after(() => server.close());

    it('speaks 2026-07-28 after one server/discover, with no probe on later calls', async () => {
      const { fetch, sent } = recordingFetch();
      const client = new AdcpClient({ url: server.url, protocol: 'mcp', fetch });
      try {
        for (const brief of ['pets', 'cars']) {
          const result = await client.call<string>('get_products', { brief });
          assert.equal(result.status, 'completed');
          assert.deepEqual((result.data as { products: { brief: string }[] }).products[0]?.brief, brief);
        }
        assert.deepEqual(sent, ['POST server/discover', 'POST tools/call', 'POST tools/call']);
      } finally {
        await client.close();
      }
    });

    it('lists the tools on the modern era', async () => {
      const client = new AdcpClient({ url: server.url, protocol: 'mcp', mcpEra: 'modern' });
      try {
        const discovered = await client.discover();
        assert.ok(discovered.tools?.some((tool) => tool.name === 'get_products'));
      } finally {
        await client.close();
      }
    });

    it(`pinned to the 2025 era, ${legacy === 'stateless' ? 'is served statelessly' : 'fails with a typed HTTP 400 error'}`, async () => {
      const client = new AdcpClient({ url: server.url, protocol: 'mcp', mcpEra: 'legacy', retry: false });
      try {
        const call = client.call('get_products', { brief: 'pets' });
        if (legacy === 'stateless') assert.equal((await call).status, 'completed');
        else {
          await assert.rejects(
            call,
            (error: unknown) => error instanceof AdcpWireError && error.code === 'http_status' && error.status === 400,
          );
        }
      } finally {
        await client.close();
      }
    });
  });
}

describe('AdcpClient against an SDK 1.x server (2025 era, MCP Tasks)', () => {
  let server: TestServer;
  before(async () => {
    server = await startMcpTestServer({
      tasks: true,
      pollInterval: 50,
      tools: [
        {
          name: 'get_products',
          taskSupport: 'optional',
          taskPolls: 1,
          handler: () => ({ content: [], structuredContent: { status: 'completed', products: [] } }),
        },
      ],
    });
  });
  after(() => server.close());

  it('falls back to initialize after the server/discover probe, once, and runs an MCP task', async () => {
    const { fetch, sent } = recordingFetch();
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', fetch });
    try {
      const plain = await client.call('get_products', {});
      assert.equal(plain.status, 'completed');
      const tasked = await client.call('get_products', {}, { task: { ttl: 60_000 } });
      assert.equal(tasked.status, 'completed');
      assert.equal(typeof tasked.transportTaskId, 'string');
      assert.equal(sent.filter((s) => s === 'POST server/discover').length, 1);
      assert.equal(sent[1], 'POST initialize');
    } finally {
      await client.close();
    }
  });
});

describe('AdcpClient against an SDK 1.x server (2025 era, first answer)', () => {
  it('sends server/discover, initialize, notifications/initialized and tools/call, and opens no standalone GET stream', async () => {
    const server = await startMcpTestServer({
      tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) }],
    });
    const { fetch, sent } = recordingFetch();
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', fetch });
    try {
      assert.equal((await client.call('get_products', {})).status, 'completed');
      assert.equal((await client.call('get_products', {})).status, 'completed');
      assert.deepEqual(sent, [
        'POST server/discover',
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/call',
        'POST tools/call',
      ]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('AdcpClient era probe sent ahead (before the MCP SDK is loaded)', () => {
  it('sends server/discover as the transport is made, then initialize and the call, with no second probe', async () => {
    const server = await startMcpTestServer({
      tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) }],
    });
    const { fetch, sent } = recordingFetch();
    const transport = await createTransport('mcp', { url: server.url, maxBytes: 1_000_000, fetch });
    try {
      // Out before the transport module (and the SDK it imports) was loaded, not on the first call.
      assert.deepEqual(sent, ['POST server/discover']);
      const result = await transport.callTool('get_products', {}, { maxBytes: 1_000_000 });
      assert.equal(result.status, 'completed');
      assert.deepEqual(sent, [
        'POST server/discover',
        'POST initialize',
        'POST notifications/initialized',
        'POST tools/call',
      ]);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  it('speaks the modern era to a dual-era createAdcpServer: server/discover, then the call, no initialize', async () => {
    const server = await createAdcpServer({
      validateRequests: false,
      tools: [{ name: 'get_products', description: 'Products.', handler: () => ({ products: [] }) }],
    }).listen();
    const { fetch, sent } = recordingFetch();
    const transport = await createTransport('mcp', { url: server.mcpUrl, maxBytes: 1_000_000, fetch });
    try {
      assert.deepEqual(sent, ['POST server/discover']);
      const result = await transport.callTool('get_products', {}, { maxBytes: 1_000_000 });
      assert.equal(result.status, 'completed');
      assert.deepEqual(sent, ['POST server/discover', 'POST tools/call']);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  it('reports a probe that failed before the first call to that call, then probes again on the next', async () => {
    const sent: string[] = [];
    const unreachable: typeof fetch = async (_input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '{}';
      sent.push(`${init?.method ?? 'GET'} ${(JSON.parse(body) as { method?: string }).method ?? ''}`);
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    };
    const transport = await createTransport('mcp', {
      url: 'http://127.0.0.1:9/mcp',
      maxBytes: 1_000,
      fetch: unreachable,
    });
    try {
      await new Promise((resolve) => setImmediate(resolve)); // the probe has failed by now
      const isNetwork = (error: unknown) => error instanceof AdcpWireError && error.code === 'network';
      await assert.rejects(transport.callTool('get_products', {}, { maxBytes: 1_000 }), isNetwork);
      assert.deepEqual(sent, ['POST server/discover']);
      await assert.rejects(transport.callTool('get_products', {}, { maxBytes: 1_000 }), isNetwork);
      assert.deepEqual(sent, ['POST server/discover', 'POST server/discover']);
    } finally {
      await transport.close();
    }
  });

  it('pinned to an era, sends no probe ahead', async () => {
    const { fetch, sent } = recordingFetch();
    const transport = await createTransport('mcp', {
      url: 'http://127.0.0.1:9/mcp',
      maxBytes: 1_000_000,
      fetch,
      mcpEra: 'legacy',
    });
    await transport.close();
    assert.deepEqual(sent, []);
  });
});

describe('AdcpClient era probe', () => {
  it('does not fall back to initialize when the agent cannot be reached', async () => {
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    await new Promise<void>((resolve) => http.close(() => resolve()));
    const { fetch, sent } = recordingFetch();
    const client = new AdcpClient({ url: `http://127.0.0.1:${port}/mcp`, protocol: 'mcp', fetch, retry: false });
    try {
      await assert.rejects(
        client.call('get_products', {}),
        (error: unknown) => error instanceof AdcpWireError && error.code === 'network',
      );
      assert.deepEqual(sent, ['POST server/discover']);
      // The failed probe is forgotten once reported: the next call probes again.
      await assert.rejects(
        client.call('get_products', {}),
        (error: unknown) => error instanceof AdcpWireError && error.code === 'network',
      );
      assert.deepEqual(sent, ['POST server/discover', 'POST server/discover']);
    } finally {
      await client.close();
    }
  });
});

describe('AdcpClient against createAdcpServer on the modern era (Tasks extension)', () => {
  let server: ListeningAdcpServer;
  before(async () => {
    server = await createAdcpServer({
      validateRequests: false,
      taskAfterMs: 0,
      store: new MemoryTaskStore({ policy: { pollIntervalMs: 50 } }),
      tools: [
        {
          name: 'sync_creatives',
          description: 'Takes a moment.',
          handler: async (_args, context) => {
            await context.working('Syncing');
            await new Promise((resolve) => setTimeout(resolve, 200));
            return { creatives: [] };
          },
        },
      ],
    }).listen();
  });
  after(() => server.close());

  it('follows a task the server chose to the end, reporting it, behind the same call()', async () => {
    const { fetch, sent } = recordingFetch();
    const client = new AdcpClient({ url: server.mcpUrl, protocol: 'mcp', fetch });
    const events: string[] = [];
    try {
      const result = await client.call(
        'sync_creatives',
        { idempotency_key: 'modern-task-key-0001' },
        { onProgress: (event) => events.push(event.status) },
      );
      assert.equal(result.status, 'completed');
      assert.equal(typeof result.transportTaskId, 'string');
      assert.ok(events.includes('working'));
      assert.ok(sent.includes('POST tasks/get'));
      assert.ok(!sent.includes('POST initialize'));
    } finally {
      await client.close();
    }
  });
});
