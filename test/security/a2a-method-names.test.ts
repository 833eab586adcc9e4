// Issue 10, item 15: A2A method names that are Object.prototype members.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from '../server/fixtures.js';
import { rawPost, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

describe('createAdcpServer A2A method routing', () => {
  const server = createAdcpServer({ tools: testTools() });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen();
  });
  after(() => server.close());

  for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
    it(`answers method "${method}" with -32601 Method not found, not a 500`, async () => {
      const answer = await rawPost(listening.a2aUrl, { body: JSON.stringify({ jsonrpc: '2.0', id: 7, method }) });
      assert.equal(answer.status, 200);
      const message = rpcMessage(answer);
      assert.equal(message.id, 7);
      assert.equal((message.error as Json).code, -32601);
    });
  }
});
