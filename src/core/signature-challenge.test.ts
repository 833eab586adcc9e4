import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { authRefusal, bearerChallengeError, signatureChallengeError } from './signature-challenge.js';

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

describe('bearerChallengeError and authRefusal', () => {
  const header =
    'Bearer realm="http://127.0.0.1/a2a", error="invalid_token", error_description="The token is not valid"';

  it("reads the Bearer challenge's error and its description", () => {
    assert.deepEqual(bearerChallengeError(header), { error: 'invalid_token', description: 'The token is not valid' });
    assert.deepEqual(bearerChallengeError('Bearer error=insufficient_scope'), { error: 'insufficient_scope' });
    assert.equal(bearerChallengeError('Bearer realm="x"'), undefined);
    assert.equal(bearerChallengeError('Signature error="invalid_token"'), undefined);
    assert.equal(bearerChallengeError('Bearer error="Not A Code"'), undefined);
  });

  it('says the token was refused on a 401 or 403, and nothing on other statuses', () => {
    assert.deepEqual(authRefusal(401, header), {
      note: ' (the agent refused the token: invalid_token: The token is not valid)',
      fields: { tokenError: 'invalid_token' },
    });
    assert.equal(authRefusal(403, 'Bearer error="insufficient_scope"').fields.tokenError, 'insufficient_scope');
    assert.deepEqual(authRefusal(500, header), { note: '', fields: {} });
    assert.equal(
      authRefusal(401, 'Signature error="request_signature_required"').fields.signatureError,
      'request_signature_required',
    );
  });

  it('sanitises the seller-controlled description', () => {
    const said = bearerChallengeError('Bearer error="invalid_token", error_description="bad\u001b[31m red"');
    assert.ok(!(said?.description ?? '').includes('\u001b'));
  });
});
