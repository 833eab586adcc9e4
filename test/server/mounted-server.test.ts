import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from './fixtures.js';

describe('createAdcpServer mounted in another node:http server', () => {
  const adcp = createAdcpServer({ validateRequests: false, tools: testTools() });
  let host: Server;
  let base = '';
  let client: Client | undefined;

  before(async () => {
    host = createServer((req, res) => {
      if (req.url === '/health') {
        res.end('ok');
        return;
      }
      void adcp.handle(req, res);
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  after(async () => {
    await client?.close();
    await adcp.close();
    host.closeAllConnections();
    await new Promise<void>((resolve) => host.close(() => resolve()));
  });

  it('serves MCP tool calls through handle()', async () => {
    client = new Client({ name: 'mounted', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const result = await client.callTool({ name: 'get_adcp_capabilities', arguments: {} });
    assert.deepEqual((result.structuredContent as { supported_protocols: string[] }).supported_protocols, [
      'media_buy',
    ]);
  });

  it('leaves the host its own routes', async () => {
    assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
  });

  it('builds card URLs from the address the caller connected to', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as { url: string };
    assert.equal(card.url, `${base}/a2a`);
  });
});

describe('createAdcpServer MCP session limit', () => {
  const adcp = createAdcpServer({ validateRequests: false, tools: testTools(), maxSessions: 2 });
  const clients: Client[] = [];
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await adcp.close();
  });

  it('drops the least recently used session past maxSessions', async () => {
    const l = await adcp.listen();
    for (let i = 0; i < 3; i += 1) {
      const client = new Client({ name: `c${i}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(l.mcpUrl)));
      clients.push(client);
    }
    await assert.rejects(clients[0]!.listTools(), /404|not found/i);
    const tools = await clients[2]!.listTools();
    assert.ok(tools.tools.length > 0);
  });
});
