// Issue 10, item 16: deeply nested requests get one clear error on both transports.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../src/core/json-depth.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from '../server/fixtures.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';
import { mcpPost, openMcpSession, rawPost, rpcMessage } from './raw-http.js';
import type { Json, RawAnswer } from './raw-http.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

const mcpCall = (args: string) =>
  `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_products","arguments":${args}}}`;
const a2aSend = (input: string) =>
  `{"jsonrpc":"2.0","id":4,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER",` +
  `"parts":[{"data":{"skill":"get_products","input":${input}}}]}}}`;

function assertTooDeep(answer: RawAnswer): void {
  assert.equal(answer.status, 400, answer.text.slice(0, 200));
  const message = rpcMessage(answer);
  const error = message.error as Json;
  assert.equal(error.code, -32600);
  assert.match(String(error.message), new RegExp(`nested deeper than ${MAX_JSON_DEPTH}`));
  assert.equal(((error.data as Json).adcp_error as Json).code, 'INVALID_REQUEST');
  assert.doesNotMatch(answer.text, /call stack/i);
}

describe('createAdcpServer request nesting depth', () => {
  const server = createAdcpServer({ tools: testTools() });
  let listening: ListeningAdcpServer;
  let session: string;
  before(async () => {
    listening = await server.listen();
    session = await openMcpSession(listening.mcpUrl);
  });
  after(() => server.close());

  for (const levels of [5_000, 100_000]) {
    it(`refuses a context nested ${levels} levels deep over MCP with -32600`, async () => {
      assertTooDeep(await mcpPost(listening.mcpUrl, session, mcpCall(`{"context":${nested(levels)}}`)));
    });

    it(`refuses a context nested ${levels} levels deep over A2A with -32600`, async () => {
      assertTooDeep(await rawPost(listening.a2aUrl, { body: a2aSend(`{"context":${nested(levels)}}`) }));
    });
  }

  it('refuses one level past the limit and still serves a shallow context on both wires', async () => {
    assertTooDeep(await rawPost(listening.a2aUrl, { body: a2aSend(nested(MAX_JSON_DEPTH)) }));
    const mcp = rpcMessage(await mcpPost(listening.mcpUrl, session, mcpCall('{"context":{"a":{"b":[1]}}}')));
    assert.deepEqual(((mcp.result as Json).structuredContent as Json).context, { a: { b: [1] } });
    const a2a = rpcMessage(
      await rawPost(listening.a2aUrl, { body: a2aSend('{"context":{"a":{"b":[1]}}}'), headers: ACTIVATED_HEADERS }),
    );
    assert.equal(a2a.error, undefined, JSON.stringify(a2a.error));
  });
});
