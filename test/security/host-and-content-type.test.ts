// Issue 10, item 6: card URLs never come from an unchecked Host header, and A2A takes only
// application/json bodies (a cross-site form or text/plain POST is refused).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from '../server/fixtures.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';
import { rawPost, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

/** GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host }, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

const cardUrls = (agentCard: Json, serverCard: Json): string[] => [
  String(agentCard.url),
  ...(agentCard.supportedInterfaces as Json[]).map((i) => String(i.url)),
  ...(serverCard.remotes as Json[]).map((r) => String(r.url)),
];

describe('card URLs under a forged Host', () => {
  // Mounted without a Host allow-list: what a server bound to a public address sees.
  const mounted = createAdcpServer({ tools: testTools() });
  const configured = createAdcpServer({
    tools: testTools(),
    publicUrl: 'https://seller.example',
    allowedHosts: ['seller.example', '127.0.0.1'],
  });
  let host: Server;
  let mountedBase = '';
  let listening: ListeningAdcpServer;
  before(async () => {
    host = createServer((req, res) => void mounted.handle(req, res));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    mountedBase = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    listening = await configured.listen();
  });
  after(async () => {
    await mounted.close();
    await configured.close();
    host.closeAllConnections();
    await new Promise<void>((resolve) => host.close(() => resolve()));
  });

  it('never writes an unchecked Host into the agent card or the server card', async () => {
    const agent = await getWithHost(`${mountedBase}/.well-known/agent-card.json`, 'evil.example:666');
    const server = await getWithHost(`${mountedBase}/.well-known/mcp.json`, 'evil.example:666');
    assert.equal(agent.status, 200);
    for (const url of cardUrls(agent.body, server.body)) {
      assert.doesNotMatch(url, /evil/);
      assert.ok(url.startsWith(`${mountedBase}/`), url);
    }
  });

  it('writes the configured public origin, whatever allowed Host was sent', async () => {
    const agent = await getWithHost(`${listening.url}/.well-known/agent-card.json`, '127.0.0.1');
    const server = await getWithHost(`${listening.url}/.well-known/mcp.json`, 'seller.example');
    assert.equal(agent.body.url, 'https://seller.example/a2a');
    assert.deepEqual(server.body.remotes, [{ type: 'streamable-http', url: 'https://seller.example/mcp' }]);
  });

  it('refuses a public URL that is not an http(s) origin', () => {
    for (const publicUrl of ['ftp://seller.example', 'https://u:p@seller.example', 'not a url']) {
      assert.throws(() => createAdcpServer({ tools: [], publicUrl }), RangeError);
    }
  });
});

describe('A2A request content type', () => {
  const server = createAdcpServer({ tools: testTools() });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen();
  });
  after(() => server.close());

  const send = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { skill: 'get_products', input: {} } }] },
    },
  });

  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/jsonx',
  ]) {
    it(`refuses a ${type} body with 415 before running anything`, async () => {
      for (const url of [listening.a2aUrl, listening.mcpUrl]) {
        const answer = await rawPost(url, { body: send, headers: { 'content-type': type } });
        assert.equal(answer.status, 415, `${url}: ${answer.text.slice(0, 120)}`);
        assert.match(String((rpcMessage(answer).error as Json).message), /application\/json/);
      }
    });
  }

  it('serves application/json, with or without charset=utf-8', async () => {
    for (const type of ['application/json', 'Application/JSON; charset=UTF-8']) {
      const answer = await rawPost(listening.a2aUrl, {
        body: send,
        headers: { ...ACTIVATED_HEADERS, 'content-type': type },
      });
      assert.equal(answer.status, 200);
      assert.equal(rpcMessage(answer).error, undefined);
    }
  });
});
