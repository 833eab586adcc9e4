// Issue 10, item 13: a deterministic bad argument answers a non-retryable validation error, and
// MCP `arguments` that are not an object answer -32602 with a clear message.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { mcpPost, openMcpSession, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

describe('reference seller arguments that can never work', () => {
  let seller: ReferenceSeller;
  let client: Client;
  before(async () => {
    seller = await startReferenceSeller({ sendWebhook: async () => undefined });
    client = new Client({ name: 'probe', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
  });

  const listCreatives = async (pagination: Json) => {
    const result = await client.callTool({ name: 'list_creatives', arguments: { pagination } });
    return { isError: result.isError === true, body: result.structuredContent as Json };
  };

  for (const [name, pagination, field] of [
    ['a forged cursor', { cursor: 'c1.eyJhIjoiemMifQ' }, 'pagination.cursor'],
    ['a cursor of another agent', { cursor: 'opaque-123' }, 'pagination.cursor'],
    ['max_results 0', { max_results: 0 }, 'pagination.max_results'],
    ['max_results "10"', { max_results: '10' }, 'pagination.max_results'],
  ] as const) {
    it(`answers list_creatives ${name} with INVALID_REQUEST (correctable), not SERVICE_UNAVAILABLE`, async () => {
      const { isError, body } = await listCreatives(pagination);
      assert.equal(isError, true);
      const error = body.adcp_error as Json;
      assert.equal(error.code, 'INVALID_REQUEST');
      assert.equal(error.recovery, 'correctable');
      assert.equal(error.field, field);
    });
  }

  it('still lists with an in-range page', async () => {
    const { isError, body } = await listCreatives({ max_results: 10 });
    assert.equal(isError, false);
    assert.ok(Array.isArray(body.creatives));
  });

  for (const args of ['"x"', '[1]', '5', 'null']) {
    it(`answers tools/call with arguments ${args} with -32602 and a one-line message`, async () => {
      const session = await openMcpSession(seller.mcpUrl);
      const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_products","arguments":${args}}}`;
      const message = rpcMessage(await mcpPost(seller.mcpUrl, session, body));
      assert.equal(message.id, 9);
      const error = message.error as Json;
      assert.equal(error.code, -32602);
      assert.equal(error.message, 'Invalid params: tools/call arguments must be a JSON object');
      assert.equal(((error.data as Json).adcp_error as Json).recovery, 'correctable');
    });
  }

  it('answers tasks/get with a numeric taskId with -32602, not a schema dump', async () => {
    const session = await openMcpSession(seller.mcpUrl);
    const body = '{"jsonrpc":"2.0","id":10,"method":"tasks/get","params":{"taskId":5}}';
    const error = rpcMessage(await mcpPost(seller.mcpUrl, session, body)).error as Json;
    assert.equal(error.code, -32602);
    assert.equal(error.message, 'Invalid params: tasks/get params.taskId must be string');
  });
});
