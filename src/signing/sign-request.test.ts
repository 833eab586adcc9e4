import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync } from 'node:crypto';
import { signRequest, checkRequestSigningOptions, freshNonce } from './sign-request.js';
import { verifyRequestSignature } from './verify-request-signature.js';
import type { Jwk } from './jwks.js';

const vectorsDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/request-signing-vectors',
);
const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8')) as T;
type PrivateJwk = Jwk & { _private_d_for_test_only: string };
const keys = read<{ keys: PrivateJwk[] }>('keys.json').keys;
const privateOf = (kid: string) => {
  const jwk = keys.find((k) => k.kid === kid) as PrivateJwk;
  return { ...jwk, d: jwk._private_d_for_test_only };
};

interface Vector {
  reference_now: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  jwks_ref: string[];
}

describe('signRequest', () => {
  for (const [file, profile] of [
    ['positive/001-basic-post.json', '3.1'],
    ['positive/002-post-with-content-digest.json', '3.1'],
    ['profile-3.2/positive/001-post-with-content-digest.json', '3.2'],
  ] as const) {
    it(`reproduces ${file} byte for byte (Ed25519 is deterministic)`, () => {
      const vector = read<Vector>(file);
      const input = vector.request.headers['Signature-Input'] ?? '';
      const nonce = /nonce="([^"]+)"/.exec(input)?.[1] ?? '';
      const headers = signRequest(
        {
          method: vector.request.method,
          url: vector.request.url,
          headers: vector.request.headers,
          body: vector.request.body,
          now: vector.reference_now,
          nonce,
        },
        {
          keyid: 'test-ed25519-2026',
          privateKey: privateOf('test-ed25519-2026'),
          coverContentDigest: input.includes('content-digest'),
          profile,
        },
      );
      assert.equal(headers['signature-input'], input);
      assert.equal(headers.signature, vector.request.headers['Signature']);
      if (input.includes('content-digest'))
        assert.equal(headers['content-digest'], vector.request.headers['Content-Digest']);
    });
  }

  it('signs with ES256 so the verifier accepts it, and a changed body is refused', async () => {
    const now = 1_800_000_000;
    const request = {
      method: 'POST',
      url: 'https://seller.example/mcp',
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    };
    const options = { keyid: 'test-es256-2026', privateKey: privateOf('test-es256-2026'), alg: 'es256' as const };
    const headers = { 'content-type': 'application/json', ...signRequest({ ...request, now }, options) };
    const jwks = keys.filter((k) => k.kid === 'test-es256-2026');
    const verified = await verifyRequestSignature(
      { ...request, headers },
      { jwks, now, coverContentDigest: 'required' },
    );
    assert.deepEqual(verified.ok && verified.signed && verified.keyid, 'test-es256-2026');
    const tampered = await verifyRequestSignature(
      { ...request, body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', headers },
      { jwks, now },
    );
    assert.deepEqual(tampered, { ok: false, code: 'request_signature_digest_mismatch' });
  });

  it('refuses misuse at once: a key that does not fit the alg, a public key, a bad keyid', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    assert.throws(() => checkRequestSigningOptions({ keyid: 'k', privateKey, alg: 'es256' }), /alg asks for ec/);
    assert.throws(() => checkRequestSigningOptions({ keyid: 'k', privateKey: publicKey }), /private key/);
    assert.throws(() => checkRequestSigningOptions({ keyid: 'a"b', privateKey }), /keyid/);
    assert.throws(() => checkRequestSigningOptions({ keyid: 'k', privateKey, validitySeconds: 301 }), RangeError);
    assert.doesNotThrow(() => checkRequestSigningOptions({ keyid: 'k', privateKey }));
  });

  it('gives every request its own 16-byte nonce, across refills of the nonce pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i += 1) {
      const nonce = freshNonce();
      assert.match(nonce, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(Buffer.from(nonce, 'base64url').length, 16);
      seen.add(nonce);
    }
    assert.equal(seen.size, 1000);
  });
});
