import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

// Issue 36 item 9: a `tasks/get` for task T1 answered with another task (`taskId: OTHER`) must
// not settle T1's call with OTHER's result, on either MCP era: the seller (or anything between)
// would hand the buyer another task's data, another principal's perhaps.

const stolen = { content: [], structuredContent: { status: 'completed', products: [{ product_id: 'stolen' }] } };

/** A 2026-07-28 server (raw JSON-RPC) whose `tasks/get` answers with another task. */
async function startModernSwapper(): Promise<{ url: string; methods: string[]; close(): Promise<void> }> {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const message = JSON.parse(text) as { id: number; method: string; params: { taskId?: string } };
      methods.push(message.method);
      const answer = (result: unknown) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
      if (message.method === 'tools/call')
        answer({ resultType: 'task', taskId: 'T1', status: 'working', pollIntervalMs: 10 });
      else if (message.method === 'tasks/get') answer({ taskId: 'OTHER', status: 'completed', result: stolen });
      else if (message.method === 'tasks/cancel') answer({});
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    methods,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const isProtocolError = (error: unknown): boolean => {
  assert.equal((error as { code?: string }).code, 'protocol', String(error));
  assert.match(String(error), /OTHER/);
  return true;
};

describe('AdcpClient on the 2026-07-28 era, facing a tasks/get answer for another task', () => {
  let server: Awaited<ReturnType<typeof startModernSwapper>>;
  before(async () => {
    server = await startModernSwapper();
  });
  after(() => server.close());

  it('refuses the other task as the result of the call', async () => {
    const client = new AdcpClient({
      url: server.url,
      protocol: 'mcp',
      mcpEra: 'modern',
      retry: false,
      timeoutMs: 10_000,
    });
    try {
      await assert.rejects(client.call('get_products', { brief: 'x' }), isProtocolError);
      assert.ok(server.methods.includes('tasks/get'));
    } finally {
      await client.close();
    }
  });

  it('refuses the other task when the buyer asks for T1 by id', async () => {
    const client = new AdcpClient({
      url: server.url,
      protocol: 'mcp',
      mcpEra: 'modern',
      retry: false,
      timeoutMs: 10_000,
    });
    try {
      await assert.rejects(client.getTransportTask('T1'), isProtocolError);
      await assert.rejects(client.cancelTransportTask('T1'), isProtocolError);
    } finally {
      await client.close();
    }
  });
});

describe('AdcpClient on the 2025 era (MCP Tasks), facing a tasks/get answer for another task', () => {
  let server: TestServer;
  before(async () => {
    server = await startMcpTestServer({
      tasks: true,
      pollInterval: 10,
      tools: [{ name: 'get_products', taskSupport: 'required', taskPolls: 1, handler: () => stolen }],
      // tasks/get is answered for another task, completed; tasks/result goes to the real server.
      middleware: (message, _req, res) => {
        if (message?.['method'] !== 'tasks/get') return false;
        const result = {
          taskId: 'OTHER',
          status: 'completed',
          ttl: 60_000,
          createdAt: new Date().toISOString(),
          lastUpdatedAt: new Date().toISOString(),
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message['id'], result }));
        return true;
      },
    });
  });
  after(() => server.close());

  it('refuses the other task as the state of the call', async () => {
    const client = new AdcpClient({
      url: server.url,
      protocol: 'mcp',
      mcpEra: 'legacy',
      retry: false,
      timeoutMs: 10_000,
    });
    try {
      await assert.rejects(client.call('get_products', {}, { task: { ttl: 60_000 } }), isProtocolError);
    } finally {
      await client.close();
    }
  });
});
