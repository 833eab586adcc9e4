// warn_for shadow mode on a running server (security.md, "Composition with fallback authenticators"):
// a missing or failed well-formed signature is reported and the call continues only under the
// caller's bearer credential; without one a failed signature is refused as unauthenticated; a
// malformed header pair is refused whatever the credential. The same decideAdmission backs the
// body-integrity-policy.json cases (test/vectors/request-signing.test.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { Jwk } from '../../src/signing/jwks.js';
import type { RequestSignatureError } from '../../src/signing/signature-codes.js';
import { ACTIVATED_HEADERS, sendMessageBody } from '../server/profile-activation.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const keyid = 'buyer-warn-2026';
const publicJwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: keyid,
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const BEARER = 'warn-for-test-token';

describe('request signing warn_for against the reference seller', () => {
  let seller: ReferenceSeller;
  const warnings: { code: RequestSignatureError; operation?: string }[] = [];
  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      authenticate: (req) => (req.headers.authorization === `Bearer ${BEARER}` ? 'buyer-bearer' : null),
      requestSigning: {
        jwks: { keys: [publicJwk] },
        warnFor: ['create_media_buy'],
        protocolMethodsWarnFor: ['tasks/cancel'],
        coverContentDigest: 'required',
        onWarning: (warning) => warnings.push(warning),
      },
    });
  });
  after(async () => {
    await seller.close();
  });

  const invoke = sendMessageBody;
  const body = () =>
    invoke('create_media_buy', {
      ...mediaBuyRequest([packageRequest('display_news', 10)]),
      idempotency_key: randomUUID(),
    });
  const sign = (text: string, key = privateKey) =>
    signRequest(
      {
        method: 'POST',
        url: seller.a2aUrl,
        headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS },
        body: text,
      },
      { keyid, privateKey: key, alg: 'ed25519' },
    );
  const post = async (headers: Record<string, string>, text: string) => {
    const response = await fetch(seller.a2aUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS, ...headers },
      body: text,
    });
    const answer = await response.text();
    return { status: response.status, challenge: response.headers.get('www-authenticate'), answer };
  };
  const bearer = { authorization: `Bearer ${BEARER}` };

  it('advertises warn_for and protocol_methods_warn_for in request_signing', async () => {
    const { answer } = await post(bearer, invoke('get_adcp_capabilities', {}));
    assert.match(answer, /"warn_for":\["create_media_buy"\]/);
    assert.match(answer, /"protocol_methods_warn_for":\["tasks\/cancel"\]/);
  });

  it('a bad signature with a valid bearer continues under the bearer and is reported', async () => {
    warnings.length = 0;
    const text = body();
    const result = await post({ ...sign(text, other.privateKey), ...bearer }, text);
    assert.equal(result.status, 200, result.answer);
    assert.match(result.answer, /TASK_STATE_COMPLETED/);
    assert.match(result.answer, /"status":"submitted"|media_buy_id/);
    assert.deepEqual(warnings, [
      { code: 'request_signature_invalid', method: 'SendMessage', operation: 'create_media_buy' },
    ]);
  });

  it('a bad signature without another credential is refused as unauthenticated (no signature code)', async () => {
    const text = body();
    const result = await post(sign(text, other.privateKey), text);
    assert.deepEqual({ status: result.status, challenge: result.challenge }, { status: 401, challenge: 'Bearer' });
  });

  it('an unsigned call with a valid bearer continues, reported as a missing signature', async () => {
    warnings.length = 0;
    const result = await post(bearer, body());
    assert.equal(result.status, 200, result.answer);
    assert.deepEqual(
      warnings.map((w) => w.code),
      ['request_signature_required'],
    );
  });

  it('a malformed header pair is refused even with a valid bearer', async () => {
    const text = body();
    const headers = sign(text);
    const { signature: _dropped, ...partial } = headers;
    const result = await post({ ...partial, ...bearer }, text);
    assert.deepEqual(
      { status: result.status, challenge: result.challenge },
      { status: 401, challenge: 'Signature error="request_signature_header_malformed"' },
    );
  });

  it('a valid signature is accepted and reports nothing', async () => {
    warnings.length = 0;
    const text = body();
    const result = await post(sign(text), text);
    assert.equal(result.status, 200, result.answer);
    assert.deepEqual(warnings, []);
  });
});

describe('request signing warn_for behind static tokens (auth)', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({
      auth: { tokens: { [BEARER]: 'buyer-bearer' } },
      requestSigning: { jwks: { keys: [publicJwk] }, warnFor: ['create_media_buy'], coverContentDigest: 'required' },
    });
  });
  after(async () => {
    await seller.close();
  });

  it('refuses a failed signature without a token as auth refuses a missing credential', async () => {
    const text = sendMessageBody('create_media_buy', {
      ...mediaBuyRequest([packageRequest('display_news', 10)]),
      idempotency_key: randomUUID(),
    });
    const headers = signRequest(
      { method: 'POST', url: seller.a2aUrl, headers: { 'content-type': 'application/json' }, body: text },
      { keyid, privateKey: other.privateKey, alg: 'ed25519' },
    );
    const response = await fetch(seller.a2aUrl, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', ...ACTIVATED_HEADERS },
      body: text,
    });
    const answer = await response.text();
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm=/);
    assert.match(answer, /AUTH_MISSING|AUTH_REQUIRED/);
  });
});
