import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from './fixtures.js';

/** A raw HTTP request (fetch will not let a test forge Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const rpcBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: 'm',
      role: 'user',
      parts: [{ kind: 'data', data: { skill: 'get_products', input: {} } }],
    },
  },
});

describe('createAdcpServer request bounds', () => {
  const server = createAdcpServer({ validateRequests: false, tools: testTools(), maxBodyBytes: 4096 });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen({ host: '127.0.0.1' });
  });
  after(() => server.close());

  it('accepts a loopback Host', async () => {
    const reply = await raw(listening.a2aUrl, { headers: { 'content-type': 'application/json' }, body: rpcBody });
    assert.equal(reply.status, 200);
  });

  it('refuses a foreign Host on a loopback listener (DNS rebinding)', async () => {
    const reply = await raw(listening.a2aUrl, {
      headers: { host: 'evil.example', 'content-type': 'application/json' },
      body: rpcBody,
    });
    assert.equal(reply.status, 403);
  });

  it('refuses a foreign Origin on a loopback listener', async () => {
    const reply = await raw(listening.mcpUrl, {
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: rpcBody,
    });
    assert.equal(reply.status, 403);
  });

  it('refuses a body over the cap with 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { pad: 'x'.repeat(10_000) } });
    const reply = await raw(listening.a2aUrl, { headers: { 'content-type': 'application/json' }, body: big });
    assert.equal(reply.status, 413);
  });

  it('refuses a body with a duplicate object key as a parse error', async () => {
    const dup = '{"jsonrpc":"2.0","id":1,"method":"tasks/get","method":"message/send","params":{}}';
    const reply = await raw(listening.a2aUrl, { headers: { 'content-type': 'application/json' }, body: dup });
    assert.equal(reply.status, 400);
    assert.equal((JSON.parse(reply.body) as { error: { code: number } }).error.code, -32700);
  });

  it('refuses an MCP request without a session that is not initialize', async () => {
    const reply = await raw(listening.mcpUrl, {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(reply.status, 400);
  });

  it('serves the MCP server card at both well-known paths with the AdCP _meta block', async () => {
    for (const path of ['/.well-known/mcp.json', '/.well-known/server.json']) {
      const reply = await raw(`${listening.url}${path}`, { method: 'GET' });
      const card = JSON.parse(reply.body) as {
        _meta: Record<string, { adcp_version: string }>;
        tools: { name: string }[];
      };
      assert.equal(reply.status, 200);
      assert.equal(card._meta['adcontextprotocol.org']?.adcp_version, '3.1');
      assert.ok(card.tools.some((t) => t.name === 'get_products'));
    }
  });

  it('answers 401 when authenticate refuses the caller', async () => {
    const guarded = createAdcpServer({ validateRequests: false, tools: testTools(), authenticate: () => null });
    const l = await guarded.listen();
    try {
      const reply = await raw(l.a2aUrl, { headers: { 'content-type': 'application/json' }, body: rpcBody });
      assert.equal(reply.status, 401);
    } finally {
      await guarded.close();
    }
  });

  it('answers a handler that outlives the request timeout with a transient error', async () => {
    const slow = createAdcpServer({
      validateRequests: false,
      requestTimeoutMs: 50,
      tools: [{ name: 'get_products', description: 'never answers', handler: () => new Promise(() => undefined) }],
    });
    const l = await slow.listen();
    try {
      const reply = await raw(l.a2aUrl, { headers: { 'content-type': 'application/json' }, body: rpcBody });
      const task = (
        JSON.parse(reply.body) as {
          result: { status: { state: string }; artifacts: { parts: { data?: { adcp_error?: { code: string } } }[] }[] };
        }
      ).result;
      assert.equal(task.status.state, 'failed');
      assert.equal(task.artifacts[0]?.parts[1]?.data?.adcp_error?.code, 'SERVICE_UNAVAILABLE');
    } finally {
      await slow.close();
    }
  });
});
