import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookEmitter } from '../../src/webhooks/create-webhook-emitter.js';
import { makeKey } from '../webhooks/helpers.js';

// Issue 10 item 7: the seller's webhook emitter must never be steered at an internal address by
// a buyer's push_notification_config URL: not by IP spellings the first check missed, and not by
// a host name that resolves (or re-resolves, DNS rebinding) to one. No probe here sends traffic
// anywhere but loopback: host names are resolved by an injected resolver.

const seller = makeKey('seller-ssrf-key');
const event = { taskId: 't', taskType: 'create_media_buy', status: 'completed' } as const;

/** A resolver that answers from `table` and counts its calls; unknown names fail like NXDOMAIN. */
function resolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (answers === undefined) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

describe('webhook emitter destinations (SSRF)', () => {
  it('refuses IP spellings and special-use ranges before any connection', async () => {
    const { resolve, calls } = resolver({});
    const emitter = createWebhookEmitter({ signingKey: seller.signing, resolveHost: resolve });
    for (const url of [
      'https://localhost./hook',
      'https://hooks.localhost./hook',
      'https://[::7f00:1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[64:ff9b::a9fe:a9fe]/latest/meta-data',
      'https://[2002:7f00:1::]/hook',
      'https://[fd00::1]/hook',
      'https://192.0.0.1/hook',
      'https://198.18.0.1/hook',
      'https://192.0.2.1/hook',
      'https://100.64.0.1/hook',
      'https://0x7f.1/hook',
      'https://2130706433/hook',
    ]) {
      const outcome = await emitter.send({ url, operation_id: 'op' }, event);
      assert.deepEqual([outcome.ok, outcome.attempts, !outcome.ok && outcome.reason], [false, 0, 'unsafe_url'], url);
    }
    assert.deepEqual(calls, [], 'IP literals are judged without resolving');
  });

  it('refuses a host name whose answers include a special-use address, without connecting', async () => {
    const { resolve, calls } = resolver({
      'internal.buyer.example': ['10.0.0.5'],
      'rebind.buyer.example': ['93.184.216.34', '127.0.0.1'],
      'metadata.buyer.example': ['64:ff9b::a9fe:a9fe'],
    });
    const emitter = createWebhookEmitter({ signingKey: seller.signing, resolveHost: resolve, maxAttempts: 3 });
    for (const host of ['internal.buyer.example', 'rebind.buyer.example', 'metadata.buyer.example']) {
      const outcome = await emitter.send({ url: `https://${host}/hook`, operation_id: 'op' }, event);
      assert.equal(outcome.ok, false, host);
      assert.equal(!outcome.ok && outcome.reason, 'unsafe_url', host);
      assert.equal(outcome.attempts, 0, host);
      assert.match((!outcome.ok && outcome.error) || '', /special-use address/, host);
    }
    assert.deepEqual(calls, ['internal.buyer.example', 'rebind.buyer.example', 'metadata.buyer.example']);
  });
});

describe('webhook emitter DNS pinning', () => {
  let server: Server;
  let port = 0;
  const seen: IncomingMessage['headers'][] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('connects to the address its own resolution gave, resolving once per attempt', async () => {
    // `buyer.test` exists in no DNS: the request can only arrive here through the injected answer.
    const { resolve, calls } = resolver({ 'buyer.test': ['127.0.0.1'] });
    const emitter = createWebhookEmitter({ signingKey: seller.signing, resolveHost: resolve, allowInsecureUrls: true });
    const outcome = await emitter.send({ url: `http://buyer.test:${port}/hook`, operation_id: 'op' }, event);
    assert.deepEqual([outcome.ok, outcome.attempts], [true, 1]);
    assert.deepEqual(calls, ['buyer.test']);
    assert.equal(seen.at(-1)?.['host'], `buyer.test:${port}`);
  });
});
