// issue 30 item 5, a2a-profile-extension.md "JSON number interoperability": an integer-valued
// number outside ±(2^53−1) is refused before A2A encoding (AdcpClient sends nothing) and after
// decoding (our server refuses the request, AdcpClient refuses the answer), never rounded; within
// the range `3` and `3.0` are the same value (the idempotency replay over A2A).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from '../server/fixtures.js';
import { startRawServer, sendJson, v1Card, v1Task, type RawServer } from './raw-server.js';

const PROFILE = 'https://adcontextprotocol.org/extensions/adcp/v3';

describe('A2A JSON numbers outside ±(2^53−1)', () => {
  let raw: RawServer;
  let ours: ListeningAdcpServer;
  const server = createAdcpServer({
    validateRequests: false,
    tools: [
      ...testTools({}),
      // A handler answering a count no binary64 holds exactly (2^60 + 1 is already 2^60 in JS:
      // the check sees the integer-valued number above 2^53 − 1, whatever its spelling was).
      {
        name: 'list_creatives',
        description: 'Answers a count outside the exact range.',
        handler: () => ({ creatives: [], query_summary: { total_matching: 2 ** 60 } }),
      },
    ],
  });
  before(async () => {
    ours = await server.listen();
    raw = await startRawServer((req, res, base) => {
      if (req.method === 'GET')
        return req.path === '/.well-known/agent-card.json' ? sendJson(res, v1Card(base)) : sendJson(res, {}, 404);
      // 12345678901234567890 as the seller wrote it: JSON.parse already rounded it.
      const body = JSON.stringify({ jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ count: 1 }) } });
      sendJson(res, body.replace('"count":1', '"count":12345678901234567890'));
    });
  });
  after(async () => {
    await raw.close();
    await server.close();
  });

  it('AdcpClient refuses to send one (RangeError naming the pointer) and sends nothing', async () => {
    const client = new AdcpClient({ url: raw.base, protocol: 'a2a', retry: false });
    const before = raw.requests.filter((r) => r.method === 'POST').length;
    try {
      await assert.rejects(
        client.call('get_products', { brief: 'x', filters: { budget_range: { max: 2 ** 53, currency: 'USD' } } }),
        (error: unknown) => error instanceof RangeError && /\/filters\/budget_range\/max/.test(error.message),
      );
    } finally {
      await client.close();
    }
    assert.equal(raw.requests.filter((r) => r.method === 'POST').length, before);
  });

  it('AdcpClient refuses an answer that carries one (protocol), not a rounded value', async () => {
    const client = new AdcpClient({ url: raw.base, protocol: 'a2a', retry: false });
    try {
      await assert.rejects(
        client.call('get_products', { brief: 'x' }),
        (error: unknown) =>
          error instanceof AdcpWireError && error.code === 'protocol' && /\/count/.test(error.message),
      );
    } finally {
      await client.close();
    }
  });

  for (const [method, wire] of [
    ['SendMessage', '1.0'],
    ['message/send', '0.3'],
  ] as const) {
    it(`our server refuses a decoded one in a ${method} with INVALID_REQUEST at its pointer`, async () => {
      const part = wire === '1.0' ? {} : { kind: 'data' };
      const message = {
        ...(wire === '1.0' ? { role: 'ROLE_USER' } : { kind: 'message', role: 'user' }),
        messageId: 'n1',
        parts: [{ ...part, data: { skill: 'get_products', input: { brief: 'x', n: 1 } } }],
      };
      const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message } }).replace(
        '"n":1',
        '"n":-12345678901234567890',
      );
      const response = await fetch(ours.a2aUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': wire, 'a2a-extensions': PROFILE },
        body: text,
      });
      const answer = (await response.json()) as {
        error?: { data?: { adcp_error?: { code?: string; field?: string } } };
      };
      assert.deepEqual(answer.error?.data?.adcp_error?.code, 'INVALID_REQUEST');
      assert.equal(answer.error?.data?.adcp_error?.field, 'input/n');
    });
  }

  it('our server never encodes one in an answer: the buyer gets CONFIGURATION_ERROR at its pointer', async () => {
    const client = new AdcpClient({ url: ours.url, protocol: 'a2a', retry: false });
    try {
      const result = await client.call('list_creatives', {});
      assert.equal(result.status, 'failed', JSON.stringify(result));
      assert.equal(result.error?.code, 'CONFIGURATION_ERROR');
      assert.match(String(result.error?.adcpError.message), /\/query_summary\/total_matching/);
    } finally {
      await client.close();
    }
  });

  it('our server takes an integer at the edge of the range, and the spelling 3.0', async () => {
    const message = {
      role: 'ROLE_USER',
      messageId: 'n2',
      parts: [{ data: { skill: 'get_products', input: { brief: 'x', n: 9007199254740991, m: 3 } } }],
    };
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }).replace(
      '"m":3',
      '"m":3.0',
    );
    const response = await fetch(ours.a2aUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': PROFILE },
      body: text,
    });
    const answer = (await response.json()) as { error?: unknown; result?: unknown };
    assert.equal(answer.error, undefined, JSON.stringify(answer).slice(0, 300));
    assert.ok(answer.result !== undefined);
  });
});
