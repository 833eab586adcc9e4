import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signatureChallengeError } from './signature-challenge.js';

describe('signatureChallengeError', () => {
  it('reads the code of the AdCP Signature challenge', () => {
    assert.equal(signatureChallengeError('Signature error="request_signature_required"'), 'request_signature_required');
  });

  it('reads it beside other parameters and after a Bearer challenge', () => {
    const header =
      'Bearer realm="https://seller.example/mcp", error="invalid_token", Signature realm="x", error="request_signature_key_unknown"';
    assert.equal(signatureChallengeError(header), 'request_signature_key_unknown');
  });

  it('reads a token value, a case-insensitive scheme and commas inside quoted strings', () => {
    assert.equal(signatureChallengeError('signature error=request_signature_replayed'), 'request_signature_replayed');
    assert.equal(
      signatureChallengeError('Signature realm="a, b", error="request_body_malformed"'),
      'request_body_malformed',
    );
  });

  it('ignores the error of another scheme', () => {
    assert.equal(signatureChallengeError('Bearer error="request_signature_required"'), undefined);
    assert.equal(signatureChallengeError('Bearer realm="x", Signature'), undefined);
  });

  it('returns nothing for a code outside the request-signing taxonomy or a hostile value', () => {
    assert.equal(signatureChallengeError('Signature error="invalid_token"'), undefined);
    assert.equal(signatureChallengeError('Signature error="request_signature_required\\r\\nX: y"'), undefined);
    assert.equal(signatureChallengeError(`Signature error="request_${'a'.repeat(100)}"`), undefined);
    assert.equal(
      signatureChallengeError(`Signature error="request_signature_required", ${'x'.repeat(5000)}`),
      undefined,
    );
    assert.equal(signatureChallengeError(null), undefined);
    assert.equal(signatureChallengeError('Signature error="unterminated'), undefined);
  });
});
