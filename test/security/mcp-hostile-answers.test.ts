import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

// Issue 10 item 14: an MCP answer that can never settle the call (another request's id, or an
// SSE content type around a JSON body) must fail the call at once, as A2A does, instead of
// holding it for the whole timeout (300 s by default).

const answer = (id: unknown) => ({ jsonrpc: '2.0', id, result: { content: [], structuredContent: { products: [] } } });

const hostile: Record<string, (id: number, res: ServerResponse) => void> = {
  'a JSON answer with another request id': (id, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(id + 1000)));
  },
  'a JSON answer with no id at all': (_id, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', result: {} }));
  },
  'an SSE content type around a JSON body': (id, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(JSON.stringify(answer(id)));
  },
  'an SSE stream whose only answer has another id': (id, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`event: message\ndata: ${JSON.stringify(answer(`${id}-x`))}\n\n`);
  },
  'a JSON error with id null': (_id, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
  },
  // The SDK drops an error it cannot route to a request: the call would wait for its deadline.
  'an SSE stream whose answer is an error with id null': (_id, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700 } })}\n\n`);
  },
};

describe('AdcpClient over MCP, facing answers that cannot settle the call', () => {
  let server: TestServer;
  let behaviour = '';
  before(async () => {
    server = await startMcpTestServer({
      tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: {} }) }],
      middleware: (message, _req, res) => {
        const answer = hostile[behaviour];
        if (message?.['method'] !== 'tools/call' || answer === undefined) return false;
        answer(message['id'] as number, res);
        return true;
      },
    });
  });
  after(() => server.close());

  for (const name of Object.keys(hostile)) {
    it(`fails at once with a protocol error on ${name}`, async () => {
      behaviour = name;
      const client = new AdcpClient({ url: server.url, protocol: 'mcp', retry: false, timeoutMs: 20_000 });
      try {
        // A call held until its deadline would end with code 'timeout': 'protocol' shows it
        // failed on the answer itself, with no timed assertion that a loaded machine can break.
        await assert.rejects(client.call('get_products', {}), (error: unknown) => {
          assert.equal((error as { code?: string }).code, 'protocol', String(error));
          return true;
        });
      } finally {
        await client.close();
      }
    });
  }

  it('still answers well-formed calls over JSON and SSE', async () => {
    behaviour = 'none';
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', retry: false, timeoutMs: 20_000 });
    try {
      const result = await client.call('get_products', {});
      assert.equal(result.status, 'completed');
    } finally {
      await client.close();
    }
  });
});
