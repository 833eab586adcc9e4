// An unknown tool is one answer on every wire (issue 32 item 9): createAdcpServer refuses it with
// JSON-RPC -32602 carrying an adcp_error INVALID_REQUEST over MCP (both eras) and A2A, and
// AdcpClient reads that as a failed result on each, never a throw on one and data on the other.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';

describe('an unknown tool, over MCP and A2A', () => {
  let server: ListeningAdcpServer;
  before(async () => {
    server = await createAdcpServer({
      tools: [
        { name: 'get_products', description: 'products', handler: () => ({ products: [], cache_scope: 'public' }) },
      ],
    }).listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => server.close());

  for (const [label, options] of [
    ['mcp (modern)', { protocol: 'mcp', mcpEra: 'modern' }],
    ['mcp (legacy)', { protocol: 'mcp', mcpEra: 'legacy' }],
    ['a2a', { protocol: 'a2a' }],
  ] as const) {
    it(`${label}: a failed result with INVALID_REQUEST, field named`, async () => {
      const url = options.protocol === 'a2a' ? server.a2aUrl : server.mcpUrl;
      const client = new AdcpClient({ url, ...options });
      try {
        const result = await client.call<string>('no_such_tool', {});
        assert.equal(result.status, 'failed');
        assert.ok(result.status === 'failed');
        assert.equal(result.error.code, 'INVALID_REQUEST');
        assert.equal(result.error.adcpError.field, options.protocol === 'a2a' ? 'skill' : 'tool');
      } finally {
        await client.close();
      }
    });
  }
});
