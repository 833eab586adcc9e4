// The proof-of-control challenge sender's refusals (src/webhooks/webhook-challenge.ts, through
// the emitter): a URL the emitter's reach refuses and a host name resolving to a special-use
// address are never contacted, and without a signing key nothing is sent. The exchange itself
// (signature, echo, status, redirect, timeout) is proven against a real receiver in
// test/kit/webhook-challenge.test.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createWebhookEmitter } from '../../src/webhooks/create-webhook-emitter.js';
import { makeKey } from './helpers.js';

const fields = {
  account_id: 'acct_1',
  subscriber_id: 'buyer-primary',
  seller_agent_url: 'https://seller.example/mcp',
  delivery_auth: { mode: 'rfc9421' },
  event_types: ['creative.purged'],
};

describe('webhook challenge refusals', () => {
  it('contacts no refused or special-use destination, and sends nothing without a key', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const key = makeKey('challenge-key').signing;
      const strict = createWebhookEmitter({ signingKey: key });
      assert.deepEqual(await strict.challenge(`http://127.0.0.1:${port}/x`, fields), {
        ok: false,
        reason: 'unsafe_url',
      });
      // A public-looking name that resolves to loopback: refused at connect time.
      const rebinding = createWebhookEmitter({
        signingKey: key,
        resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      assert.deepEqual(await rebinding.challenge(`https://buyer.example:${port}/x`, fields), {
        ok: false,
        reason: 'unsafe_url',
      });
      const keyless = createWebhookEmitter({ allowLoopbackUrls: true });
      assert.deepEqual(await keyless.challenge(`http://127.0.0.1:${port}/x`, fields), {
        ok: false,
        reason: 'unavailable',
      });
      assert.equal(hits, 0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
