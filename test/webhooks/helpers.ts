// Test helpers: keys, signed requests, MCP envelopes.
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Jwk } from '../../src/signing/jwks.js';
import { signWebhookHmac } from '../../src/webhooks/hmac.js';
import { signWebhookRequest, type WebhookSigningKey } from '../../src/webhooks/sign-webhook-request.js';

export const SECRET = 'k3Jx9Qw2Lm8Vb5Nc7Zt1Ry4Hs6Pd0Fg3Aa9Ee2Uu5Ii8Oo1';

/** A fresh Ed25519 (or P-256) key: the private signing key and its public JWK as a seller publishes it. */
export function makeKey(kid = `test-${randomUUID()}`, alg: 'ed25519' | 'ecdsa-p256-sha256' = 'ed25519') {
  const pair = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = pair.publicKey.export({ format: 'jwk' }) as Jwk;
  const publicJwk: Jwk = {
    ...jwk,
    kid,
    use: 'sig',
    key_ops: ['verify'],
    adcp_use: 'request-signing',
    alg: alg === 'ed25519' ? 'EdDSA' : 'ES256',
  };
  const signing: WebhookSigningKey = { keyid: kid, alg, privateKey: pair.privateKey };
  return { publicJwk, signing };
}

let counter = 0;
/** A valid MCP webhook envelope with a fresh 16+ character idempotency key. */
export function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    idempotency_key: `whk_${randomUUID()}`,
    operation_id: `op_${counter}_${randomUUID()}`,
    task_id: `task_${counter}`,
    task_type: 'create_media_buy',
    status: 'completed',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, counter % 60)).toISOString(),
    result: { media_buy_id: `mb_${counter}` },
    ...overrides,
  };
}

export const URL_BASE = 'http://127.0.0.1:8080/webhooks/adcp';

/** A fetch Request signed with the legacy HMAC scheme over exactly `body`. */
export function hmacRequest(
  body: string,
  options: { secret?: string; timestamp?: number | string; url?: string; contentType?: string } = {},
): Request {
  const signed = signWebhookHmac({
    secret: options.secret ?? SECRET,
    rawBody: body,
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
  });
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    ...signed.headers,
  };
  if (options.timestamp !== undefined) headers['X-ADCP-Timestamp'] = String(options.timestamp);
  return new Request(options.url ?? URL_BASE, { method: 'POST', headers, body });
}

/** A fetch Request signed with RFC 9421 by `key` over exactly `body`. */
export function signedRequest(
  body: string,
  key: WebhookSigningKey,
  options: { url?: string; headers?: Record<string, string> } = {},
): Request {
  const url = options.url ?? URL_BASE;
  const headers = signWebhookRequest({ url, body, key });
  return new Request(url, { method: 'POST', headers: { ...headers, ...options.headers }, body });
}

export async function json(response: Response): Promise<{ ok: boolean; reason?: string; result?: string }> {
  return (await response.json()) as { ok: boolean; reason?: string; result?: string };
}

/** An HMAC-signed Request computed by hand (the library signer refuses duplicate-key bodies). */
export function rawHmacRequest(body: string, secret = SECRET): Request {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  return new Request(URL_BASE, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-adcp-signature': signature, 'x-adcp-timestamp': timestamp },
    body,
  });
}
