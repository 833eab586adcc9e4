import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer } from '../a2a/raw-server.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../cli/fake-io.js';

// Issue 10 item 5: the caller's credentials (`auth`, any `headers`) go only to the origin the
// caller gave, or to the origins it lists in `credentialOrigins`; never to wherever a seller's
// agent card (or a redirect) points.

const SECRET = { auth: 'secret-token', headers: { 'x-api-key': 'secret-key' } };

/** Every request the client made, by URL, with its credential headers; nothing leaves loopback. */
function recordingFetch(seen: { url: string; authorization: string | null; apiKey: string | null }[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    seen.push({ url, authorization: headers.get('authorization'), apiKey: headers.get('x-api-key') });
    if (new URL(url).hostname !== '127.0.0.1') throw new TypeError(`test refused a request off loopback: ${url}`);
    return fetch(input, init);
  };
}

describe('AdcpClient over A2A, a card whose interface is on another origin', () => {
  let agent: RawServer;
  let elsewhere: RawServer;
  let interfaceUrl = '';
  before(async () => {
    elsewhere = await startRawServer((req, res) =>
      sendJson(res, { jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ products: [] }) } }),
    );
    agent = await startRawServer((req, res) => {
      if (req.method !== 'GET') return sendJson(res, {}, 404);
      const card = v1Card('');
      (card['supportedInterfaces'] as Record<string, unknown>[])[0]!['url'] = interfaceUrl;
      return sendJson(res, card);
    });
  });
  after(async () => {
    await agent.close();
    await elsewhere.close();
  });

  it('is refused with unsafe_url, and the other origin never sees the credentials', async () => {
    interfaceUrl = `${elsewhere.base}/a2a`;
    const seen: Parameters<typeof recordingFetch>[0] = [];
    const client = new AdcpClient({
      url: agent.base,
      protocol: 'a2a',
      retry: false,
      fetch: recordingFetch(seen),
      ...SECRET,
    });
    try {
      await assert.rejects(client.call('get_products', {}), (error: unknown) => {
        const e = error as { code?: string; message?: string };
        assert.equal(e.code, 'unsafe_url', String(error));
        assert.match(e.message ?? '', /credentialOrigins/);
        assert.match(e.message ?? '', new RegExp(elsewhere.base.replace(/[.:/]/g, '\\$&')));
        return true;
      });
      assert.deepEqual(elsewhere.requests, []);
      assert.deepEqual(
        seen.filter((s) => s.url.startsWith(elsewhere.base)),
        [],
      );
    } finally {
      await client.close();
    }
  });

  it('refuses a card pointing at the cloud metadata address before sending anything there', async () => {
    interfaceUrl = 'http://169.254.169.254/latest/meta-data/';
    const seen: Parameters<typeof recordingFetch>[0] = [];
    const client = new AdcpClient({
      url: agent.base,
      protocol: 'a2a',
      retry: false,
      fetch: recordingFetch(seen),
      ...SECRET,
    });
    try {
      await assert.rejects(client.call('get_products', {}), (error: unknown) => {
        assert.equal((error as { code?: string }).code, 'unsafe_url', String(error));
        return true;
      });
      assert.deepEqual(
        seen.filter((s) => !s.url.startsWith(agent.base)),
        [],
      );
    } finally {
      await client.close();
    }
  });

  it('sends the credentials there when the caller lists that origin in credentialOrigins', async () => {
    interfaceUrl = `${elsewhere.base}/a2a`;
    const before = elsewhere.requests.length;
    const client = new AdcpClient({
      url: agent.base,
      protocol: 'a2a',
      retry: false,
      credentialOrigins: [elsewhere.base],
      ...SECRET,
    });
    try {
      const result = await client.call('get_products', {});
      assert.equal(result.status, 'completed');
      const got = elsewhere.requests.slice(before);
      assert.equal(got.length, 1);
      assert.equal(got[0]?.headers['authorization'], 'Bearer secret-token');
    } finally {
      await client.close();
    }
  });

  it('adcp call refuses it with --auth, says how to allow it, and allows it with --credential-origin', async () => {
    interfaceUrl = `${elsewhere.base}/a2a`;
    const before = elsewhere.requests.length;
    const refused = recordingIo();
    const argv = ['call', agent.base, 'get_products', '{}', '--protocol', 'a2a', '--auth', 'secret-token'];
    assert.equal(await main(argv, refused), 3);
    assert.match(refused.err(), /--credential-origin/);
    assert.equal(elsewhere.requests.length, before);
    const allowed = recordingIo();
    assert.equal(await main([...argv, '--credential-origin', elsewhere.base], allowed), 0, allowed.err());
    assert.equal(elsewhere.requests.at(-1)?.headers['authorization'], 'Bearer secret-token');
  });

  it('uses it freely when the client carries no credentials', async () => {
    interfaceUrl = `${elsewhere.base}/a2a`;
    const before = elsewhere.requests.length;
    const client = new AdcpClient({ url: agent.base, protocol: 'a2a', retry: false });
    try {
      const result = await client.call('get_products', {});
      assert.equal(result.status, 'completed');
      assert.equal(elsewhere.requests.length, before + 1);
      assert.equal(elsewhere.requests.at(-1)?.headers['authorization'], undefined);
    } finally {
      await client.close();
    }
  });
});

describe('AdcpClient over MCP, an agent that redirects to another origin', () => {
  let mcp: TestServer;
  let redirector: RawServer;
  before(async () => {
    mcp = await startMcpTestServer({
      tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) }],
    });
    // Same host, another port: another origin.
    redirector = await startRawServer((_req, res) => {
      res.writeHead(307, { location: mcp.url }).end();
    });
  });
  after(async () => {
    await redirector.close();
    await mcp.close();
  });

  it('does not follow it with the credentials', async () => {
    const client = new AdcpClient({ url: `${redirector.base}/mcp`, protocol: 'mcp', retry: false, ...SECRET });
    try {
      await client.call('get_products', {}).catch(() => undefined);
      const leaked = mcp.headers.filter((h) => h['authorization'] !== undefined || h['x-api-key'] !== undefined);
      assert.deepEqual(leaked, []);
    } finally {
      await client.close();
    }
  });
});
