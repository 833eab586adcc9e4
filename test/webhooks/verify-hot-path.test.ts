// The shortcuts of the RFC 9421 verification hot path give the same answers as the long way.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { canonicalizeTargetUri } from '../../src/signing/canonicalize-target-uri.js';
import { parseDictionary } from '../../src/signing/structured-fields.js';
import { signWebhookRequest } from '../../src/webhooks/sign-webhook-request.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify-webhook-signature.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';

const target = (url: string) => {
  const result = canonicalizeTargetUri(url);
  return result.ok ? result.targetUri : `error: ${result.reason}`;
};

describe('canonicalizeTargetUri shortcuts', () => {
  it('passes a raw path without dot segments through unchanged', () => {
    for (const path of [
      '/',
      '/a/b',
      '/webhooks/adcp/op_1',
      '/a//b/',
      "/~x-y_z.json!$&'()*+,;=:@",
      '/.hidden/..x/...',
      '/a/b.',
    ]) {
      assert.equal(target(`https://buyer.example${path}?q=%zz`), `https://buyer.example${path}?q=%zz`, path);
    }
  });
  it('still removes dot segments and normalises percent-encoding', () => {
    const cases: Array<[string, string]> = [
      ['/a/./b', '/a/b'],
      ['/a/../b', '/b'],
      ['/a/..', '/'],
      ['/.', '/'],
      ['/a/%7e%41%2f', '/a/~A%2F'],
      ['/caf\u00e9', '/caf%C3%A9'],
      ['/a b', '/a%20b'],
    ];
    for (const [path, expected] of cases)
      assert.equal(target(`https://buyer.example${path}`), `https://buyer.example${expected}`, path);
  });
  it('gives the same host answer from the cache as the first time, past the cache size too', () => {
    for (let round = 0; round < 2; round += 1) {
      assert.equal(target('https://BUYER.Example./x'), 'https://buyer.example/x');
      assert.equal(target('https://b\u00fccher.example/x'), 'https://xn--bcher-kva.example/x');
      assert.equal(target('https://a..b/x'), 'error: malformed host name');
      for (let i = 0; i < 300; i += 1) assert.equal(target(`https://H${i}.example/`), `https://h${i}.example/`);
    }
  });
});

describe('parseDictionary character classes', () => {
  it('refuses non-ASCII characters in keys, tokens and byte sequences', () => {
    for (const text of [
      's\u00efg=1',
      'sig=tok\u00e9n',
      'sig=:ab\u00e9c:',
      'sig=:ab\ud83d\ude00:',
      'sig1=();k\u00e9y=1',
    ]) {
      assert.equal(parseDictionary(text), undefined, text);
    }
  });
  it('reads keys, tokens and byte sequences up to the first character outside their class', () => {
    const dict = parseDictionary('a*b-c.d_9=tok:/en;p=*x, z=:AZaz09+/=_-:');
    assert.deepEqual(dict?.get('a*b-c.d_9'), {
      kind: 'item',
      value: { type: 'token', value: 'tok:/en' },
      params: [['p', { type: 'token', value: '*x' }]],
    });
    assert.deepEqual(dict?.get('z'), { kind: 'item', value: { type: 'binary', value: 'AZaz09+/=_-' }, params: [] });
  });
});

describe('verifyWebhookSignature on the thread pool', () => {
  it('verifies many deliveries at once and refuses exactly the tampered ones', async () => {
    const pair = generateKeyPairSync('ed25519');
    const jwk = {
      ...pair.publicKey.export({ format: 'jwk' }),
      kid: 'k1',
      use: 'sig',
      key_ops: ['verify'],
      adcp_use: 'request-signing',
    };
    const replay = new MemoryReplayStore();
    const now = 1_776_520_800;
    const requests = Array.from({ length: 40 }, (_, i) => {
      const url = `https://buyer.example/webhooks/op_${i}`;
      const body = JSON.stringify({ idempotency_key: `whk_${i}`, status: 'completed' });
      const headers = signWebhookRequest({
        url,
        body,
        key: { keyid: 'k1', alg: 'ed25519', privateKey: pair.privateKey },
        now,
      });
      // Every fifth delivery has one byte of its signature changed.
      if (i % 5 === 0)
        headers.Signature = headers.Signature!.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
      return { method: 'POST', url, headers, body };
    });
    const results = await Promise.all(requests.map((r) => verifyWebhookSignature(r, { jwks: [jwk], now, replay })));
    results.forEach((result, i) => {
      if (i % 5 === 0) assert.deepEqual(result, { ok: false, reason: 'webhook_signature_invalid' }, `delivery ${i}`);
      else assert.equal(result.ok, true, `delivery ${i}: ${JSON.stringify(result)}`);
    });
  });
});
