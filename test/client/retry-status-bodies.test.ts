import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer } from '../a2a/raw-server.js';
import { fakeClock } from './helpers/fake-clock.js';

// Issue 10 item 12: an HTTP 429/503 whose body is a JSON-RPC error (rate-limit middleware, a
// gateway) is as transient as a bare one (transport-errors.md "Transport-Level Errors"):
// retried, after the Retry-After the answer carries.

/** Answers with `status`, a JSON-RPC error body and `Retry-After: 7`. */
function refuse(res: ServerResponse, status: number, id: unknown, data?: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '7' });
  const error = { code: -32000, message: status === 429 ? 'Too Many Requests' : 'Service Unavailable' };
  res.end(JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? error : { ...error, data } }));
}

/** An MCP server whose first `times` tools/call requests are refused by `refuse`. */
async function refusingMcpServer(status: number, times: number, data?: unknown) {
  const state = { refusals: 0, server: undefined as unknown as TestServer };
  state.server = await startMcpTestServer({
    tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) }],
    middleware: (message, _req, res) => {
      if (message?.['method'] !== 'tools/call' || state.refusals >= times) return false;
      state.refusals += 1;
      refuse(res, status, message['id'], data);
      return true;
    },
  });
  return state;
}

/** Runs `body` with a client, closing it whatever happens. */
async function withClient(client: AdcpClient, body: (client: AdcpClient) => Promise<void>): Promise<void> {
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

for (const status of [429, 503]) {
  describe(`AdcpClient over MCP, HTTP ${status} with a JSON-RPC error body`, () => {
    let mcp: Awaited<ReturnType<typeof refusingMcpServer>>;
    before(async () => {
      mcp = await refusingMcpServer(status, 2);
    });
    after(() => mcp.server.close());

    it('is retried after the Retry-After delay, then answers', async () => {
      const clock = fakeClock();
      await withClient(new AdcpClient({ url: mcp.server.url, protocol: 'mcp', clock }), async (client) => {
        const result = await client.call('get_products', {});
        assert.equal(result.status, 'completed');
        assert.equal(mcp.refusals, 2);
        assert.deepEqual(clock.sleeps, [7000, 7000]);
      });
    });

    it('past the retry budget, is thrown as a retryable http_status error', async () => {
      mcp.refusals = 0;
      const client = new AdcpClient({ url: mcp.server.url, protocol: 'mcp', clock: fakeClock(), retry: false });
      await withClient(client, async () => {
        await assert.rejects(client.call('get_products', {}), (error: unknown) => {
          const e = error as { code?: string; status?: number; retryable?: boolean };
          assert.equal(e.code, 'http_status');
          assert.equal(e.status, status);
          assert.equal(e.retryable, true);
          return true;
        });
      });
    });
  });

  describe(`AdcpClient over A2A, HTTP ${status} with a JSON-RPC error body`, () => {
    let raw: RawServer;
    let refusals = 0;
    before(async () => {
      raw = await startRawServer((req, res, base) => {
        if (req.method === 'GET') return sendJson(res, v1Card(base));
        if (refusals < 2) {
          refusals += 1;
          return refuse(res, status, req.body?.id);
        }
        return sendJson(res, { jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ products: [] }) } });
      });
    });
    after(() => raw.close());

    it('is retried after the Retry-After delay, then answers', async () => {
      const clock = fakeClock();
      await withClient(new AdcpClient({ url: raw.base, protocol: 'a2a', clock }), async (client) => {
        const result = await client.call('get_products', {});
        assert.equal(result.status, 'completed');
        assert.equal(refusals, 2);
        assert.deepEqual(clock.sleeps, [7000, 7000]);
      });
    });
  });
}

describe('AdcpClient over MCP, HTTP 429 whose JSON-RPC error carries an adcp_error', () => {
  let mcp: Awaited<ReturnType<typeof refusingMcpServer>>;
  before(async () => {
    mcp = await refusingMcpServer(429, 1, { adcp_error: { code: 'RATE_LIMITED', recovery: 'transient' } });
  });
  after(() => mcp.server.close());

  it('takes the delay from Retry-After when the adcp_error gives no retry_after', async () => {
    const clock = fakeClock();
    await withClient(new AdcpClient({ url: mcp.server.url, protocol: 'mcp', clock }), async (client) => {
      const result = await client.call('get_products', {});
      assert.equal(result.status, 'completed');
      assert.deepEqual(clock.sleeps, [7000]);
    });
  });
});
