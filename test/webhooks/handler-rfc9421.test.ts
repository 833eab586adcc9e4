import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import type { WebhookEvent, WebhookHandler } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { RevocationList } from '../../src/signing/revocation.js';
import { signWebhookRequest } from '../../src/webhooks/sign-webhook-request.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify-webhook-signature.js';
import { URL_BASE, envelope, hmacRequest, json, makeKey, signedRequest } from './helpers.js';
import { readVector } from './vectors.js';
import type { Jwk } from '../../src/signing/jwks.js';

describe('createWebhookHandler (RFC 9421)', () => {
  const ed = makeKey('seller-ed25519');
  const ec = makeKey('seller-es256', 'ecdsa-p256-sha256');
  let events: WebhookEvent[];
  let handler: WebhookHandler;
  let revocation: RevocationList;
  beforeEach(() => {
    events = [];
    revocation = new RevocationList();
    handler = createWebhookHandler({
      signature: { scheme: 'rfc9421', jwks: { keys: [ed.publicJwk, ec.publicJwk] }, revocation },
      dedup: new MemoryDedupStore(),
      operations: new MemoryOperationStore(),
      onEvent: (event) => {
        events.push(event);
      },
    });
  });

  it('accepts an Ed25519-signed delivery and scopes dedup by the keyid', async () => {
    const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), ed.signing));
    assert.equal(response.status, 200);
    assert.deepEqual(events[0]?.sender, { scheme: 'rfc9421', scope: 'kid:seller-ed25519', keyid: 'seller-ed25519' });
  });

  it('accepts an ES256-signed delivery', async () => {
    const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), ec.signing));
    assert.equal(response.status, 200);
    assert.equal(events[0]?.sender.keyid, 'seller-es256');
  });

  it('refuses the same signature replayed (same nonce) with webhook_signature_replayed', async () => {
    const body = JSON.stringify(envelope());
    const headers = signWebhookRequest({ url: URL_BASE, body, key: ed.signing });
    const first = await handler.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    const replay = await handler.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.equal(first.status, 200);
    assert.equal(replay.status, 401);
    assert.equal(replay.headers.get('www-authenticate'), 'Signature error="webhook_signature_replayed"');
  });

  it('answers a re-signed retry of a processed event with 200 duplicate', async () => {
    const body = JSON.stringify(envelope());
    await handler.fetch(signedRequest(body, ed.signing));
    const retry = await handler.fetch(signedRequest(body, ed.signing));
    assert.deepEqual(await json(retry), { ok: true, result: 'duplicate' });
    assert.equal(events.length, 1);
  });

  it('refuses a body changed after signing with webhook_signature_digest_mismatch', async () => {
    const body = JSON.stringify(envelope());
    const headers = signWebhookRequest({ url: URL_BASE, body, key: ed.signing });
    const response = await handler.fetch(
      new Request(URL_BASE, { method: 'POST', headers, body: body.replace('completed', 'failed') }),
    );
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_signature_digest_mismatch' });
  });

  it('refuses a delivery signed for another URL with webhook_signature_invalid', async () => {
    const body = JSON.stringify(envelope());
    const headers = signWebhookRequest({ url: 'http://127.0.0.1:8080/other', body, key: ed.signing });
    const response = await handler.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_signature_invalid' });
  });

  it('refuses a Host that does not match the signed authority (cross-vhost replay)', async () => {
    const body = JSON.stringify(envelope());
    const result = await verifyWebhookSignature(
      {
        method: 'POST',
        url: URL_BASE,
        headers: { ...signWebhookRequest({ url: URL_BASE, body, key: ed.signing }), Host: 'other.example' },
        body,
      },
      { jwks: [ed.publicJwk] },
    );
    assert.deepEqual(result, { ok: false, reason: 'webhook_target_uri_malformed' });
  });

  it('refuses an unknown key with webhook_signature_key_unknown', async () => {
    const stranger = makeKey('stranger');
    const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), stranger.signing));
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_signature_key_unknown' });
  });

  it('refuses a revoked key, and every key once the list is stale', async () => {
    revocation.update({ revoked_kids: ['seller-ed25519'] });
    const revoked = await handler.fetch(signedRequest(JSON.stringify(envelope()), ed.signing));
    assert.deepEqual(await json(revoked), { ok: false, reason: 'webhook_signature_key_revoked' });
    revocation.markStale();
    const stale = await handler.fetch(signedRequest(JSON.stringify(envelope()), ec.signing));
    assert.equal(stale.status, 503, "a stale list is the receiver's problem: the sender should retry");
    assert.equal(stale.headers.get('retry-after'), '60');
    assert.deepEqual(await json(stale), { ok: false, reason: 'webhook_signature_revocation_stale' });
  });

  it('answers 429 with Retry-After when the keyid filled its replay-cache cap', async () => {
    const { MemoryReplayStore } = await import('../../src/signing/replay-store.js');
    const replay = new MemoryReplayStore({ perKeyidCap: 1 });
    const capped = createWebhookHandler({
      signature: { scheme: 'rfc9421', jwks: [ed.publicJwk], replay },
      dedup: new MemoryDedupStore(),
    });
    assert.equal((await capped.fetch(signedRequest(JSON.stringify(envelope()), ed.signing))).status, 200);
    const second = await capped.fetch(signedRequest(JSON.stringify(envelope()), ed.signing));
    assert.deepEqual([second.status, second.headers.get('retry-after')], [429, '60']);
    assert.deepEqual(await json(second), { ok: false, reason: 'webhook_signature_rate_abuse' });
  });

  it('refuses an unsigned delivery and an HMAC one (mode mismatch)', async () => {
    const unsigned = await handler.fetch(
      new Request(URL_BASE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope()),
      }),
    );
    assert.deepEqual(await json(unsigned), { ok: false, reason: 'webhook_signature_header_malformed' });
    const hmac = await handler.fetch(hmacRequest(JSON.stringify(envelope())));
    assert.deepEqual(await json(hmac), { ok: false, reason: 'webhook_mode_mismatch' });
  });

  it('refuses a validly signed body with duplicate keys as webhook_body_malformed after burning the nonce', async () => {
    const body =
      '{"idempotency_key":"whk_bbbbbbbbbbbbbbbb","idempotency_key":"whk_cccccccccccccccc","operation_id":"op","task_id":"t","task_type":"x","status":"completed","timestamp":"2026-01-01T00:00:00Z"}';
    const headers = signWebhookRequest({ url: URL_BASE, body, key: ed.signing });
    const response = await handler.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_body_malformed' });
    const again = await handler.fetch(new Request(URL_BASE, { method: 'POST', headers, body }));
    assert.deepEqual(await json(again), { ok: false, reason: 'webhook_signature_replayed' });
  });

  it('rebuilds the signed URL from publicOrigin behind a TLS terminator', async () => {
    const behind = createWebhookHandler({
      signature: { scheme: 'rfc9421', jwks: [ed.publicJwk] },
      dedup: new MemoryDedupStore(),
      publicOrigin: 'https://buyer.example',
    });
    const body = JSON.stringify(envelope());
    const headers = signWebhookRequest({ url: 'https://buyer.example/webhooks/adcp?route=a', body, key: ed.signing });
    const response = await behind.fetch(
      new Request('http://10.0.0.5:3000/webhooks/adcp?route=a', { method: 'POST', headers, body }),
    );
    assert.equal(response.status, 200);
  });
});

describe('createWebhookHandler (RFC 9421, JWKS by URL)', () => {
  it('fetches the seller JWKS from its URL once and verifies with it', async () => {
    const { createServer } = await import('node:http');
    const seller = makeKey('url-key');
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [seller.publicJwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const jwksUri = `http://127.0.0.1:${(server.address() as { port: number }).port}/.well-known/jwks.json`;
      const handler = createWebhookHandler({
        signature: { scheme: 'rfc9421', jwks: jwksUri },
        dedup: new MemoryDedupStore(),
      });
      const first = await handler.fetch(signedRequest(JSON.stringify(envelope()), seller.signing));
      const second = await handler.fetch(signedRequest(JSON.stringify(envelope()), seller.signing));
      assert.deepEqual([first.status, second.status, hits], [200, 200, 1]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('answers 503 (retryable), not 401, while the seller JWKS cannot be read', async () => {
    const { createServer } = await import('node:http');
    const seller = makeKey('down-key');
    const server = createServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const jwksUri = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks-down.json`;
      const handler = createWebhookHandler({
        signature: { scheme: 'rfc9421', jwks: jwksUri },
        dedup: new MemoryDedupStore(),
      });
      const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), seller.signing));
      assert.deepEqual([response.status, response.headers.get('retry-after')], [503, '30']);
      assert.deepEqual(await json(response), { ok: false, reason: 'webhook_signature_jwks_unavailable' });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses a plain-http JWKS URL that is not loopback at creation', () => {
    assert.throws(
      () =>
        createWebhookHandler({
          signature: { scheme: 'rfc9421', jwks: 'http://seller.example/jwks.json' },
          dedup: new MemoryDedupStore(),
        }),
      TypeError,
    );
  });
});

describe('signWebhookRequest', () => {
  const keys = readVector<{ keys: Array<Jwk & { _private_d_for_test_only: string }> }>(
    'webhook-signing',
    'keys.json',
  ).keys;
  const vector = readVector<{
    request: { url: string; body: string; headers: Record<string, string> };
    reference_now: number;
  }>('webhook-signing', 'positive', '001-basic-post.json');

  it('reproduces positive vector 001 byte for byte with the test Ed25519 key (deterministic)', () => {
    const jwk = keys.find((k) => k.kid === 'test-ed25519-webhook-2026');
    assert.ok(jwk);
    const headers = signWebhookRequest({
      url: vector.request.url,
      body: vector.request.body,
      now: vector.reference_now,
      nonce: 'KXYnfEfJ0PBRZXQyVXfVQA',
      key: {
        keyid: 'test-ed25519-webhook-2026',
        alg: 'ed25519',
        privateKey: { ...jwk, d: jwk._private_d_for_test_only },
      },
    });
    assert.deepEqual(headers, {
      'Content-Type': 'application/json',
      'Content-Digest': vector.request.headers['Content-Digest'],
      'Signature-Input': vector.request.headers['Signature-Input'],
      Signature: vector.request.headers['Signature'],
    });
  });

  it('signs with ES256 in a form the verifier accepts (P1363 signature)', async () => {
    const key = makeKey('es', 'ecdsa-p256-sha256');
    const body = '{"a":1}';
    const headers = signWebhookRequest({ url: URL_BASE, body, key: key.signing });
    const result = await verifyWebhookSignature(
      { method: 'POST', url: URL_BASE, headers, body },
      { jwks: [key.publicJwk] },
    );
    assert.equal(result.ok, true);
  });

  it('refuses a validity longer than 300 s', () => {
    assert.throws(
      () => signWebhookRequest({ url: URL_BASE, body: '{}', key: makeKey().signing, validitySeconds: 301 }),
      RangeError,
    );
  });
});
