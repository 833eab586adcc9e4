// The README's vectors that the shipped folder lacks (positive 004, 006, 008; negative 003, 005,
// 008, 011, 013, 017, 020, 021), rebuilt here with the public test keys of keys.json.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { verifyWebhookSignature } from '../../src/webhooks/verify-webhook-signature.js';
import { buildSignatureBase } from '../../src/signing/signature-base.js';
import { contentDigest } from '../../src/signing/content-digest.js';
import { parseDictionary, type InnerList } from '../../src/signing/structured-fields.js';
import { RevocationList } from '../../src/signing/revocation.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { readVector } from './vectors.js';

type TestKey = Jwk & { _private_d_for_test_only: string };
const keys = readVector<{ keys: TestKey[] }>('webhook-signing', 'keys.json').keys;
const key = (kid: string): TestKey => keys.find((k) => k.kid === kid) as TestKey;
const NOW = 1776520800;
const BODY =
  '{"idempotency_key":"whk_01HW9D3H8FZP2N6R8T0V4X6Z9B","task_id":"task_456","operation_id":"op_abc","status":"completed"}';
const ALL = '("@method" "@target-uri" "@authority" "content-type" "content-digest")';

interface Spec {
  kid?: string;
  alg?: string;
  url?: string;
  signUrl?: string;
  components?: string;
  params?: string;
  mutateSignature?: (s: string) => string;
  dropHeader?: string;
}

function request(spec: Spec = {}) {
  const kid = spec.kid ?? 'test-ed25519-webhook-2026';
  const alg = spec.alg ?? 'ed25519';
  const url = spec.url ?? 'https://buyer.example.com/adcp/webhook/op_abc';
  const params =
    spec.params ??
    `created=${NOW};expires=${NOW + 300};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="${kid}";alg="${alg}";tag="adcp/webhook-signing/v1"`;
  const input = `sig1=${spec.components ?? ALL};${params}`;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Digest': contentDigest(BODY),
    'Signature-Input': input,
  };
  const list = parseDictionary(input)?.get('sig1') as InnerList;
  const base = buildSignatureBase({ method: 'POST', url: spec.signUrl ?? url, headers }, list);
  assert.equal(base.ok, true);
  const jwk = key(kid);
  const privateKey = createPrivateKey({
    key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk._private_d_for_test_only } as never,
    format: 'jwk',
  });
  const data = Buffer.from(base.ok ? base.base : '', 'utf8');
  const signature =
    alg === 'ed25519'
      ? sign(null, data, privateKey)
      : sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  let token = signature.toString('base64url');
  if (spec.mutateSignature) token = spec.mutateSignature(token);
  headers['Signature'] = `sig1=:${token}:`;
  if (spec.dropHeader !== undefined) delete headers[spec.dropHeader];
  return { method: 'POST', url, headers, body: BODY };
}

async function verify(
  spec: Spec,
  jwks: Jwk[] = [key(spec.kid ?? 'test-ed25519-webhook-2026')],
  extra: Record<string, unknown> = {},
) {
  return verifyWebhookSignature(request(spec), { jwks, now: NOW, replay: new MemoryReplayStore(), ...extra });
}

describe('verifyWebhookSignature: README vectors missing from the folder', () => {
  it('positive 004: a URL with :443 verifies against the port-stripped canonical form', async () => {
    const result = await verify({
      url: 'https://buyer.example.com:443/adcp/webhook/op_abc',
      signUrl: 'https://buyer.example.com/adcp/webhook/op_abc',
    });
    assert.equal(result.ok, true);
  });

  it('positive 006: the query is preserved byte for byte, not reordered', async () => {
    assert.equal((await verify({ url: 'https://buyer.example.com/hook?b=2&a=1&c=3' })).ok, true);
    const reordered = await verify({
      url: 'https://buyer.example.com/hook?b=2&a=1&c=3',
      signUrl: 'https://buyer.example.com/hook?a=1&b=2&c=3',
    });
    assert.deepEqual(reordered, { ok: false, reason: 'webhook_signature_invalid' });
  });

  it('positive 008: a request-signing key is accepted for webhook delivery', async () => {
    assert.equal((await verify({ kid: 'test-wrong-purpose-2026' })).ok, true);
  });

  it('negative 003: a window longer than 300 s is webhook_signature_window_invalid', async () => {
    const params = `created=${NOW};expires=${NOW + 301};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1"`;
    assert.deepEqual(await verify({ params }), { ok: false, reason: 'webhook_signature_window_invalid' });
  });

  it('negative 005: @authority not covered is webhook_signature_components_incomplete', async () => {
    assert.deepEqual(await verify({ components: '("@method" "@target-uri" "content-type" "content-digest")' }), {
      ok: false,
      reason: 'webhook_signature_components_incomplete',
    });
  });

  it('negative 008: a response-signing key is webhook_signature_key_purpose_invalid', async () => {
    assert.deepEqual(await verify({ kid: 'test-response-purpose-2026' }), {
      ok: false,
      reason: 'webhook_signature_key_purpose_invalid',
    });
  });

  it('negative 011: Signature without Signature-Input is webhook_signature_header_malformed', async () => {
    const result = await verify({ dropHeader: 'Signature-Input' });
    assert.equal(result.ok === false && result.reason, 'webhook_signature_header_malformed');
  });

  it('negative 013: expires <= created is webhook_signature_window_invalid', async () => {
    const params = `created=${NOW};expires=${NOW};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1"`;
    assert.deepEqual(await verify({ params }), { ok: false, reason: 'webhook_signature_window_invalid' });
  });

  it('negative 017: a revoked key is webhook_signature_key_revoked', async () => {
    const revocation = new RevocationList({ revoked_kids: ['test-revoked-webhook-2026'] });
    assert.deepEqual(await verify({ kid: 'test-revoked-webhook-2026' }, undefined, { revocation }), {
      ok: false,
      reason: 'webhook_signature_key_revoked',
    });
  });

  it('negative 020: key_ops without verify is webhook_signature_key_purpose_invalid', async () => {
    const jwk = { ...key('test-ed25519-webhook-2026'), key_ops: ['sign'] };
    assert.deepEqual(await verify({}, [jwk]), { ok: false, reason: 'webhook_signature_key_purpose_invalid' });
  });

  it('negative 021: a Signature token mixing Base64URL and standard Base64 is webhook_signature_header_malformed', async () => {
    const result = await verify({ mutateSignature: (s) => `${s.slice(0, 10)}+/${s.slice(12)}` });
    assert.equal(result.ok === false && result.reason, 'webhook_signature_header_malformed');
  });
});

describe('verifyWebhookSignature: further profile checks', () => {
  it('accepts ES256 signatures in IEEE P1363 form', async () => {
    assert.equal((await verify({ kid: 'test-es256-webhook-2026', alg: 'ecdsa-p256-sha256' })).ok, true);
  });

  it('refuses an alg that does not match the key type', async () => {
    const result = await verify({ kid: 'test-es256-webhook-2026', alg: 'ecdsa-p256-sha256' }, [
      { ...key('test-es256-webhook-2026'), kty: 'OKP', crv: 'Ed25519' },
    ]);
    assert.deepEqual([result.ok, !result.ok && result.reason], [false, 'webhook_signature_invalid']);
  });

  it('refuses a created time more than 60 s in the future', async () => {
    const params = `created=${NOW + 61};expires=${NOW + 300};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1"`;
    assert.deepEqual(await verify({ params }), { ok: false, reason: 'webhook_signature_window_invalid' });
  });

  it('refuses a repeated tag parameter as malformed', async () => {
    const params = `created=${NOW};expires=${NOW + 300};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1";tag="adcp/webhook-signing/v1"`;
    const result = await verifyWebhookSignature(
      {
        method: 'POST',
        url: 'https://buyer.example.com/x',
        headers: { 'Signature-Input': `sig1=${ALL};${params}`, Signature: 'sig1=:AAAA:' },
        body: BODY,
      },
      { jwks: [key('test-ed25519-webhook-2026')], now: NOW },
    );
    assert.deepEqual(result.ok === false && result.reason, 'webhook_signature_header_malformed');
  });

  it('refuses a short nonce', async () => {
    const params = `created=${NOW};expires=${NOW + 300};nonce="c2hvcnQ";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1"`;
    const result = await verify({ params });
    assert.equal(result.ok === false && result.reason, 'webhook_signature_header_malformed');
  });

  it('refuses a Signature-Input whose parameters have the wrong types', async () => {
    const params = `created="${NOW}";expires=${NOW + 300};nonce="KXYnfEfJ0PBRZXQyVXfVQA";keyid="test-ed25519-webhook-2026";alg="ed25519";tag="adcp/webhook-signing/v1"`;
    const result = await verifyWebhookSignature(
      {
        method: 'POST',
        url: 'https://buyer.example.com/x',
        headers: { 'Signature-Input': `sig1=${ALL};${params}`, Signature: 'sig1=:AAAA:' },
        body: BODY,
      },
      { jwks: [key('test-ed25519-webhook-2026')], now: NOW },
    );
    assert.equal(result.ok === false && result.reason, 'webhook_signature_header_malformed');
  });

  it('refuses rate abuse once the per-keyid cap is full, before verifying', async () => {
    const replay = new MemoryReplayStore({ perKeyidCap: 1 });
    replay.record('test-ed25519-webhook-2026', 'other-nonce', NOW + 360, NOW);
    const result = await verifyWebhookSignature(request(), {
      jwks: [key('test-ed25519-webhook-2026')],
      now: NOW,
      replay,
    });
    assert.deepEqual(result, { ok: false, reason: 'webhook_signature_rate_abuse' });
  });

  it('tells the admission monitor of an admitted keyid (and not of a refused one)', async () => {
    const { AdmissionMonitor } = await import('../../src/signing/admission-monitor.js');
    const alarms: unknown[] = [];
    const admission = new AdmissionMonitor({ onAlarm: (a) => alarms.push(a), floor: 0, proportion: 0 });
    await verify({ kid: 'test-response-purpose-2026' }, undefined, { admission });
    assert.equal(alarms.length, 0);
    await verify({}, undefined, { admission });
    assert.deepEqual(alarms, [
      { kind: 'admission_pressure', clause: 'd', newKeyids: 1, threshold: 0, windowStart: NOW - (NOW % 300) },
    ]);
  });

  it('reads now in milliseconds as well as seconds', async () => {
    const result = await verifyWebhookSignature(request(), {
      jwks: [key('test-ed25519-webhook-2026')],
      now: NOW * 1000,
      replay: new MemoryReplayStore(),
    });
    assert.equal(result.ok, true);
  });

  it('never throws on garbage headers', async () => {
    for (const input of [
      '',
      'sig1',
      'sig1=(',
      'sig1=("@method";created=1',
      'sig1=("a" "b");created=99999999999999999999',
      '\u0000',
      'x'.repeat(10_000),
    ]) {
      const result = await verifyWebhookSignature(
        {
          method: 'POST',
          url: 'https://b.example/',
          headers: { 'Signature-Input': input, Signature: input },
          body: '',
        },
        { jwks: [], now: NOW },
      );
      assert.equal(result.ok, false, input);
    }
  });
});
