import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signWebhookHmac, verifyWebhookHmac } from './hmac.js';

const SECRET = 'Qw8Lm2Vb5Nc7Zt1Ry4Hs6Pd0Fg3Aa9Ee-unit-test';
const body = '{"a":1}';

describe('verifyWebhookHmac', () => {
  const signed = signWebhookHmac({ secret: SECRET, rawBody: body, timestamp: 1_700_000_000 });
  const input = { rawBody: body, timestamp: signed.timestamp, signature: signed.signature, now: 1_700_000_000 };

  it('verifies a signature made with a strong secret', () => {
    assert.deepEqual(verifyWebhookHmac({ ...input, secret: SECRET }), { ok: true });
  });
  it('refuses an empty secret with a RangeError, as the handler does at creation', () => {
    assert.throws(() => verifyWebhookHmac({ ...input, secret: '' }), RangeError);
    assert.throws(() => verifyWebhookHmac({ ...input, secret: new Uint8Array(0) }), RangeError);
    assert.throws(() => verifyWebhookHmac({ ...input, secret: [] }), RangeError);
    assert.throws(() => verifyWebhookHmac({ ...input, secret: [SECRET, ''] }), RangeError);
  });
  it('refuses a weak secret before comparing anything', () => {
    assert.throws(() => verifyWebhookHmac({ ...input, secret: 'a'.repeat(40) }), /weak webhook secret refused/);
  });
  it('refuses the secret even when the signature header is missing', () => {
    assert.throws(() => verifyWebhookHmac({ ...input, signature: undefined, secret: '' }), RangeError);
  });
});
