import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runWebhookSigningVector, type WebhookSigningVector } from '../../src/webhooks/run-signing-vector.js';
import { buildSignatureBase } from '../../src/signing/signature-base.js';
import { parseDictionary, type InnerList } from '../../src/signing/structured-fields.js';
import { contentDigest } from '../../src/signing/content-digest.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { listVectorFiles, readVector } from './vectors.js';

type Vector = WebhookSigningVector & { name: string; expected_signature_base?: string };
const keys = readVector<{ keys: Jwk[] }>('webhook-signing', 'keys.json');

for (const kind of ['positive', 'negative'] as const) {
  describe(`verifyWebhookSignature: webhook-signing/${kind}`, () => {
    for (const file of listVectorFiles('webhook-signing', kind)) {
      const vector = readVector<Vector>('webhook-signing', kind, file);
      const expected = vector.expected_outcome.success
        ? 'accepts'
        : `rejects with ${vector.expected_outcome.error_code}`;
      it(`${file}: ${expected} (${vector.name})`, async () => {
        const run = await runWebhookSigningVector(vector, keys);
        assert.equal(run.actual, run.expected);
        if (run.result.ok) assert.equal(run.result.keyid, vector.jwks_ref[0]);
      });
    }
  });
}

describe('buildSignatureBase: webhook-signing/positive', () => {
  for (const file of listVectorFiles('webhook-signing', 'positive')) {
    const vector = readVector<Vector>('webhook-signing', 'positive', file);
    it(`${file}: reproduces expected_signature_base byte for byte`, () => {
      const input = parseDictionary(vector.request.headers['Signature-Input'] as string)?.get('sig1') as InnerList;
      const base = buildSignatureBase(vector.request, input);
      assert.deepEqual(base, { ok: true, base: vector.expected_signature_base });
    });
  }
});

describe('contentDigest: webhook-signing/positive', () => {
  for (const file of listVectorFiles('webhook-signing', 'positive')) {
    const vector = readVector<Vector>('webhook-signing', 'positive', file);
    it(`${file}: computes the vector's Content-Digest from its body`, () => {
      assert.equal(contentDigest(vector.request.body), vector.request.headers['Content-Digest']);
    });
  }
});
