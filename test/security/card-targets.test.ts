import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer } from '../a2a/raw-server.js';

// Issue 36 item 8: `AdcpClient` without credentials followed an A2A card to private and metadata
// addresses (three POSTs to 169.254.169.254 with retries). A card interface on `localhost` or a
// special-use address on another origin is refused (`unsafe_url`) before anything is sent there,
// credentials or not; a loopback agent may point at other loopback origins (local development);
// `allowPrivateCardTargets` lifts the rule. Nothing leaves loopback: the client's fetch refuses
// any other address and records what was asked, and made-up public names map onto loopback.

const PUBLIC_AGENT = 'https://seller.example';

describe('AdcpClient over A2A, a card whose interface is on an internal address', () => {
  let agent: RawServer;
  let elsewhere: RawServer;
  let interfaceUrl = '';
  const asked: string[] = [];
  /** Records every URL; maps https://seller.example onto the agent; refuses anything else off loopback. */
  const guardedFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    asked.push(url);
    const parsed = new URL(url);
    if (parsed.origin === PUBLIC_AGENT) return fetch(`${agent.base}${parsed.pathname}${parsed.search}`, init);
    if (parsed.hostname !== '127.0.0.1') throw new TypeError(`test refused a request off loopback: ${url}`);
    // https on loopback (what a card of an https agent must name) is served by the plain test server.
    return fetch(url.replace(/^https:/, 'http:'), init);
  };
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

  const refused = (error: unknown): boolean => {
    assert.equal((error as { code?: string }).code, 'unsafe_url', String(error));
    assert.match(String(error), /allowPrivateCardTargets/);
    return true;
  };

  for (const target of [
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/a2a',
    'http://[fd00::1]/a2a',
    'http://192.168.1.1/a2a',
  ]) {
    it(`refuses ${target} without credentials, before sending anything there (retries on)`, async () => {
      interfaceUrl = target;
      asked.length = 0;
      const client = new AdcpClient({ url: agent.base, protocol: 'a2a', fetch: guardedFetch });
      try {
        await assert.rejects(client.call('get_products', {}), refused);
        assert.deepEqual(
          asked.filter((url) => !url.startsWith(agent.base)),
          [],
        );
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a loopback interface named by a card of a public agent', async () => {
    interfaceUrl = `${elsewhere.base.replace(/^http:/, 'https:')}/a2a`;
    asked.length = 0;
    const before = elsewhere.requests.length;
    const client = new AdcpClient({ url: PUBLIC_AGENT, protocol: 'a2a', fetch: guardedFetch, retry: false });
    try {
      await assert.rejects(client.call('get_products', {}), refused);
      assert.equal(elsewhere.requests.length, before);
    } finally {
      await client.close();
    }
  });

  it('follows it with allowPrivateCardTargets', async () => {
    interfaceUrl = `${elsewhere.base.replace(/^http:/, 'https:')}/a2a`;
    const before = elsewhere.requests.length;
    const client = new AdcpClient({
      url: PUBLIC_AGENT,
      protocol: 'a2a',
      fetch: guardedFetch,
      retry: false,
      allowPrivateCardTargets: true,
    });
    try {
      assert.equal((await client.call('get_products', {})).status, 'completed');
      assert.equal(elsewhere.requests.length, before + 1);
    } finally {
      await client.close();
    }
  });

  it('follows a loopback agent to another loopback origin (local development)', async () => {
    interfaceUrl = `${elsewhere.base}/a2a`;
    const before = elsewhere.requests.length;
    const client = new AdcpClient({ url: agent.base, protocol: 'a2a', retry: false });
    try {
      assert.equal((await client.call('get_products', {})).status, 'completed');
      assert.equal(elsewhere.requests.length, before + 1);
    } finally {
      await client.close();
    }
  });
});
