import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createSigningFetch } from './signing-fetch.js';
import { verifyRequestSignature } from './verify-request-signature.js';
import type { Jwk } from './jwks.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'fetch-test',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const url = 'http://127.0.0.1:9/mcp';
const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products"}}';

/** A signing fetch over a base that records what it was asked to send. */
function recording(): { fetch: typeof fetch; sent: { headers: Headers; body: unknown; method?: string }[] } {
  const sent: { headers: Headers; body: unknown; method?: string }[] = [];
  const base = ((_input: unknown, init?: RequestInit) => {
    sent.push({
      headers: new Headers(init?.headers),
      body: init?.body,
      ...(init?.method ? { method: init.method } : {}),
    });
    return Promise.resolve(new Response('{}'));
  }) as typeof fetch;
  return { fetch: createSigningFetch(base, { keyid: 'fetch-test', privateKey }), sent };
}

async function verify(headers: Headers, sentBody: string) {
  const record: Record<string, string> = { host: '127.0.0.1:9' };
  headers.forEach((value, name) => (record[name] = value));
  return verifyRequestSignature(
    { method: 'POST', url, headers: record, body: sentBody },
    { jwks: [jwk], coverContentDigest: 'required' },
  );
}

describe('createSigningFetch', () => {
  for (const [kind, headers] of [
    ['a plain record', { 'Content-Type': 'application/json', 'X-Other': 'kept', Signature: 'stale' }],
    ['a Headers object', new Headers({ 'Content-Type': 'application/json', 'X-Other': 'kept', Signature: 'stale' })],
    [
      'an array of pairs',
      [
        ['Content-Type', 'application/json'],
        ['X-Other', 'kept'],
        ['Signature', 'stale'],
      ],
    ],
  ] as const) {
    it(`signs a POST given ${kind}: one content-type, the caller's other headers kept, a stale signature replaced`, async () => {
      const { fetch, sent } = recording();
      await fetch(url, { method: 'POST', headers: headers as NonNullable<RequestInit['headers']>, body });
      const [request] = sent;
      assert.ok(request);
      assert.equal(request.headers.get('content-type'), 'application/json');
      assert.equal(request.headers.get('x-other'), 'kept');
      assert.match(request.headers.get('signature') ?? '', /^sig1=:[A-Za-z0-9_-]+:$/);
      assert.equal(request.body, body);
      const verified = await verify(request.headers, body);
      assert.deepEqual(verified.ok && verified.signed && verified.keyid, 'fetch-test');
    });
  }

  it('sends other methods unsigned and untouched', async () => {
    const { fetch, sent } = recording();
    await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    assert.equal(sent[0]?.headers.get('signature'), null);
    assert.equal(sent[0]?.headers.get('accept'), 'text/event-stream');
  });

  it('answers a Request it cannot sign with a rejected promise, as fetch does, not a throw', async () => {
    const { fetch } = recording();
    await assert.rejects(fetch(new Request(url, { method: 'POST', body })), /not a Request/);
  });

  it('refuses to sign a body it cannot read as bytes', async () => {
    const { fetch } = recording();
    await assert.rejects(
      fetch(url, { method: 'POST', body: new URLSearchParams({ a: '1' }) }),
      /must be a string or bytes/,
    );
  });
});
