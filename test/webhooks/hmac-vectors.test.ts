import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signWebhookHmac, validateWebhookSecret, verifyWebhookHmac } from '../../src/webhooks/hmac.js';
import { readVector } from './vectors.js';

interface HmacVectors {
  secret: string;
  vectors: Array<{ id: string; description: string; timestamp: number; raw_body: string; expected_signature: string }>;
  rejection_vectors: Array<{
    id: string;
    description: string;
    timestamp: number;
    raw_body: string;
    signature: string | null;
    current_time?: number;
  }>;
  secret_rejection_vectors: Array<{ description: string; secret: string }>;
  signer_side: {
    rejection_vectors: Array<{ id: string; description: string; signer_input_body: string }>;
    positive_vectors: Array<{ id: string; description: string; signer_input_body: string }>;
  };
}
const file = readVector<HmacVectors>('webhook-hmac-sha256.json');

describe('signWebhookHmac / verifyWebhookHmac: vectors', () => {
  for (const v of file.vectors) {
    it(`${v.id}: signs to the expected signature (${v.description})`, () => {
      const signed = signWebhookHmac({ secret: file.secret, rawBody: v.raw_body, timestamp: v.timestamp });
      assert.equal(signed.signature, v.expected_signature);
      assert.equal(signed.timestamp, String(v.timestamp));
    });
    it(`${v.id}: verifies the expected signature over the raw bytes`, () => {
      const result = verifyWebhookHmac({
        secret: file.secret,
        rawBody: Buffer.from(v.raw_body, 'utf8'),
        timestamp: String(v.timestamp),
        signature: v.expected_signature,
        now: v.timestamp,
      });
      assert.deepEqual(result, { ok: true });
    });
  }
});

describe('verifyWebhookHmac: rejection_vectors', () => {
  const expectedReason: Record<string, string> = {
    'truncated-signature': 'signature_malformed',
    'wrong-algorithm-prefix': 'signature_malformed',
    'empty-signature': 'missing_signature',
    'missing-signature': 'missing_signature',
    'timestamp-too-old': 'timestamp_out_of_window',
    'timestamp-too-future': 'timestamp_out_of_window',
    'body-tampered': 'signature_mismatch',
  };
  for (const v of file.rejection_vectors) {
    it(`${v.id}: rejects with ${expectedReason[v.id] ?? '?'} (${v.description})`, () => {
      const result = verifyWebhookHmac({
        secret: file.secret,
        rawBody: v.raw_body,
        timestamp: String(v.timestamp),
        signature: v.signature,
        now: v.current_time ?? v.timestamp,
      });
      assert.deepEqual(result, { ok: false, reason: expectedReason[v.id] });
    });
  }
});

describe('validateWebhookSecret: secret_rejection_vectors', () => {
  for (const v of file.secret_rejection_vectors) {
    it(`refuses a weak secret: ${v.description}`, () => {
      assert.equal(validateWebhookSecret(v.secret).ok, false);
      assert.throws(() => signWebhookHmac({ secret: v.secret, rawBody: '{}' }), RangeError);
    });
  }
  it('accepts the vectors secret (64 hex characters)', () => {
    assert.deepEqual(validateWebhookSecret(file.secret), { ok: true });
  });
});

describe('signWebhookHmac: signer_side vectors', () => {
  for (const v of file.signer_side.rejection_vectors) {
    it(`${v.id}: refuses to sign with duplicate_key_input (${v.description.slice(0, 80)})`, () => {
      assert.throws(
        () => signWebhookHmac({ secret: file.secret, rawBody: v.signer_input_body, timestamp: 1700000000 }),
        (error: unknown) => error instanceof TypeError && (error as { code?: string }).code === 'duplicate_key_input',
      );
    });
  }
  for (const v of file.signer_side.positive_vectors) {
    it(`${v.id}: signs clean input`, () => {
      const signed = signWebhookHmac({ secret: file.secret, rawBody: v.signer_input_body, timestamp: 1700000000 });
      assert.match(signed.signature, /^sha256=[0-9a-f]{64}$/);
    });
  }
});

describe('verifyWebhookHmac: timestamps', () => {
  const body = '{"event":"test"}';
  const sign = (timestamp: number) => signWebhookHmac({ secret: file.secret, rawBody: body, timestamp }).signature;
  it('rejects a non-integer timestamp instead of skipping the window', () => {
    for (const timestamp of ['abc', '1700000000.5', '1e9', ' 1700000000', '-1', 'NaN']) {
      const result = verifyWebhookHmac({
        secret: file.secret,
        rawBody: body,
        timestamp,
        signature: sign(1700000000),
        now: 1700000000,
      });
      assert.deepEqual(result, { ok: false, reason: 'timestamp_not_integer' }, timestamp);
    }
  });
  it('accepts exactly 300 s of skew and rejects 301 s', () => {
    const at = (now: number) =>
      verifyWebhookHmac({
        secret: file.secret,
        rawBody: body,
        timestamp: '1700000000',
        signature: sign(1700000000),
        now,
      });
    assert.deepEqual(at(1700000300), { ok: true });
    assert.deepEqual(at(1699999700), { ok: true });
    assert.deepEqual(at(1700000301), { ok: false, reason: 'timestamp_out_of_window' });
  });
  it('accepts the previous secret during rotation', () => {
    const next = 'f'.repeat(2) + file.secret.slice(2);
    const result = verifyWebhookHmac({
      secret: [next, file.secret],
      rawBody: body,
      timestamp: 1700000000,
      signature: sign(1700000000),
      now: 1700000000,
    });
    assert.deepEqual(result, { ok: true });
  });
  it('verifies over the raw bytes, not a re-serialised object', () => {
    const spaced = '{"event": "test"}';
    const result = verifyWebhookHmac({
      secret: file.secret,
      rawBody: spaced,
      timestamp: 1700000000,
      signature: sign(1700000000),
      now: 1700000000,
    });
    assert.deepEqual(result, { ok: false, reason: 'signature_mismatch' });
  });
});
