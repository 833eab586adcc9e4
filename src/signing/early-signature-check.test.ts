import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { signRequest } from './sign-request.js';
import { verifyRequestSignature, requestSignatureProfile } from './verify-request-signature.js';
import { startSignatureCheck, type EarlySignatureCheck } from './verify-signed-message.js';
import { staticJwks } from './jwks.js';
import { generateRequestSigningKey, signingOptionsFromJwk } from './signing-key-file.js';
import { MemoryReplayStore } from './replay-store.js';
import { RevocationList } from './revocation.js';

const keyid = 'early-2026';
const { privateJwk, publicJwks } = generateRequestSigningKey(keyid);
const jwk = publicJwks.keys[0]!;
const signer = signingOptionsFromJwk(privateJwk);
const url = 'https://seller.example/mcp';
const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":{}}}';
const profile = requestSignatureProfile('required');
const signed = (text = body) => ({
  method: 'POST',
  url,
  headers: {
    'content-type': 'application/json',
    ...signRequest({ method: 'POST', url, body: text }, signer),
  } as Record<string, string>,
  body: text,
});
const fresh = () => ({
  jwks: staticJwks([jwk]),
  replay: new MemoryReplayStore(),
  coverContentDigest: 'required' as const,
});

describe('startSignatureCheck (the signature check started before the body is read)', () => {
  it('starts the check of a well-formed signed request, and the checklist accepts with its verdict', async () => {
    const request = signed();
    const options = fresh();
    const early = startSignatureCheck(request, profile, options, true);
    assert.ok(early !== undefined);
    assert.equal(await early.valid, true);
    const result = await verifyRequestSignature(request, { ...options, early });
    assert.equal(result.ok && result.signed && result.keyid, keyid);
  });

  it('uses an early verdict only for the exact algorithm, base, key and signature', async () => {
    const options = fresh();
    const request = signed();
    const early = startSignatureCheck(request, profile, options, true);
    assert.ok(early !== undefined);
    // A tampered signature: another signature text, so the verdict of the good one is not used.
    const tampered = {
      ...request,
      headers: { ...request.headers, signature: request.headers.signature!.replace(/:(.)/, ':A$1') },
    };
    const forged: EarlySignatureCheck = { ...early, valid: Promise.resolve(true) };
    const refused = await verifyRequestSignature(tampered, { ...options, early: forged });
    assert.deepEqual(refused.ok ? refused : { ok: false, code: refused.code }, {
      ok: false,
      code: 'request_signature_invalid',
    });
    // Another request (another nonce and digest, so another base) signed by the same key.
    const other = signed(body.replace('1', '2'));
    const otherForged: EarlySignatureCheck = {
      ...early,
      signatureText: early.signatureText,
      valid: Promise.resolve(false),
    };
    const accepted = await verifyRequestSignature(other, { ...options, early: otherForged });
    assert.equal(accepted.ok && accepted.signed, true);
    // The same request: its early verdict is what step 10 uses (here a false one, so it is refused).
    const same = await verifyRequestSignature(request, {
      ...options,
      early: { ...early, valid: Promise.resolve(false) },
    });
    assert.equal(!same.ok && same.code, 'request_signature_invalid');
  });

  it('keeps the checklist order: a tampered body is a digest mismatch, a replay is refused', async () => {
    const options = fresh();
    const request = signed();
    const early = startSignatureCheck(request, profile, options, true);
    const bad = await verifyRequestSignature(
      { ...request, body: body.replace('1', '9') },
      { ...options, early: early! },
    );
    assert.equal(!bad.ok && bad.code, 'request_signature_digest_mismatch');
    const first = await verifyRequestSignature(request, { ...options, early: early! });
    assert.equal(first.ok, true);
    const again = await verifyRequestSignature(request, { ...options, early: early! });
    assert.equal(!again.ok && again.code, 'request_signature_replayed');
  });

  it('spends no crypto on what steps 1-9a refuse, and queries nothing outside the process', () => {
    const request = signed();
    const check = (options: Parameters<typeof startSignatureCheck>[2], r = request) =>
      startSignatureCheck(r, profile, options, true);
    assert.equal(check({ ...fresh(), revocation: new RevocationList({ revoked_kids: [keyid] }) }), undefined);
    const full = new MemoryReplayStore({ perKeyidCap: 1 });
    full.record(keyid, 'AAAAAAAAAAAAAAAAAAAAAA', Date.now() / 1000 + 300, Date.now() / 1000);
    assert.equal(check({ ...fresh(), replay: full }), undefined);
    assert.equal(check({ ...fresh(), jwks: staticJwks([{ ...jwk, kid: 'other' }]) }), undefined);
    assert.equal(check({ ...fresh(), jwks: staticJwks([{ ...jwk, adcp_use: 'webhook-signing' }]) }), undefined);
    assert.equal(check({ ...fresh(), now: Date.now() + 3_600_000 }), undefined);
    assert.equal(
      check(fresh(), { ...request, headers: { ...request.headers, 'signature-input': 'sig1=(' } }),
      undefined,
    );
    // A key source or store of the caller's own: not asked early (it may do I/O); the checklist asks it later.
    let asked = 0;
    const own = { get: (kid: string) => ((asked += 1), kid === keyid ? jwk : undefined) };
    assert.equal(check({ ...fresh(), jwks: own }), undefined);
    assert.equal(asked, 0);
    assert.equal(check({ ...fresh(), jwks: [jwk] }) !== undefined, true);
    const replayOfItsOwn = { isAtCapacity: () => false, record: () => 'recorded' as const };
    assert.equal(check({ ...fresh(), replay: replayOfItsOwn }), undefined);
  });
});
