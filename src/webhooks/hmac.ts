import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseJsonStrict } from '../core/json.js';

/**
 * Legacy HMAC-SHA256 webhook signatures (deprecated, removed in AdCP 4.0; security.md "Legacy
 * HMAC-SHA256 fallback"): `sha256=` + hex HMAC over the bytes `"{timestamp}.{raw body}"`, the
 * timestamp being the exact ASCII integer of `X-ADCP-Timestamp`. Never over a re-serialised object.
 */
export const HMAC_SIGNATURE_HEADER = 'x-adcp-signature';
export const HMAC_TIMESTAMP_HEADER = 'x-adcp-timestamp';
export const HMAC_WINDOW_SECONDS = 300;
const MIN_SECRET_BYTES = 32;

export type HmacFailure =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'timestamp_not_integer'
  | 'timestamp_out_of_window'
  | 'signature_malformed'
  | 'signature_mismatch';

export type HmacSecret = string | Uint8Array;

/**
 * Checks a shared secret at configuration time: at least 32 bytes, not one repeated byte, not a
 * short repeated pattern. Returns `{ ok: false, reason }` for a weak one (callers refuse it).
 */
export function validateWebhookSecret(secret: unknown): { ok: true } | { ok: false; reason: string } {
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array))
    return { ok: false, reason: 'secret must be a string or bytes' };
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (bytes.length === 0) return { ok: false, reason: 'secret is empty' };
  if (bytes.length < MIN_SECRET_BYTES)
    return { ok: false, reason: `secret is ${bytes.length} bytes; at least ${MIN_SECRET_BYTES} are required` };
  for (let period = 1; period <= 4; period += 1) {
    if (bytes.every((b, i) => b === bytes[i % period]))
      return { ok: false, reason: 'secret is a repeated pattern (no entropy)' };
  }
  if (new Set(bytes).size < 8) return { ok: false, reason: 'secret uses fewer than 8 distinct bytes' };
  return { ok: true };
}

function assertSecret(secret: HmacSecret, where: string): void {
  if (typeof secret === 'string' && acceptedSecrets.has(secret)) return;
  const check = validateWebhookSecret(secret);
  if (!check.ok)
    throw new RangeError(`${where}: weak webhook secret refused (${check.reason}); use crypto.randomBytes(32)`);
  if (typeof secret === 'string') {
    if (acceptedSecrets.size >= 64) acceptedSecrets.clear();
    acceptedSecrets.add(secret);
  }
}

/** String secrets already found strong: the receiver checks its secret on every delivery. */
const acceptedSecrets = new Set<string>();

function hmacHex(secret: HmacSecret, timestamp: string, rawBody: Uint8Array | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return mac.digest('hex');
}

/**
 * Signs `rawBody` (the exact bytes to be sent). Refuses a weak secret (RangeError) and a body with
 * duplicate object keys (TypeError with `code: 'duplicate_key_input'`, security.md signer rule).
 */
export function signWebhookHmac(input: {
  secret: HmacSecret;
  rawBody: Uint8Array | string;
  timestamp?: number | string;
}): { signature: string; timestamp: string; headers: Record<string, string> } {
  assertSecret(input.secret, 'signWebhookHmac');
  const text = typeof input.rawBody === 'string' ? input.rawBody : Buffer.from(input.rawBody).toString('utf8');
  if (text !== '') {
    const parsed = parseJsonStrict(text);
    if (!parsed.ok && parsed.reason === 'duplicate_key') {
      throw Object.assign(new TypeError('signWebhookHmac: body has duplicate object keys; fix the upstream input'), {
        code: 'duplicate_key_input',
      });
    }
  }
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  if (!/^\d+$/.test(timestamp))
    throw new TypeError('signWebhookHmac: timestamp must be a non-negative integer (Unix seconds)');
  const signature = `sha256=${hmacHex(input.secret, timestamp, input.rawBody)}`;
  return { signature, timestamp, headers: { 'X-ADCP-Signature': signature, 'X-ADCP-Timestamp': timestamp } };
}

/**
 * Verifies a legacy HMAC webhook signature in the spec's order: headers present, timestamp an
 * integer, within 300 s of `now`, then a constant-time comparison. `secret` may be a list
 * (current and previous, during rotation). Never throws on hostile input; an empty or weak
 * secret (or an empty list) is the caller's mistake and throws a RangeError, as `signWebhookHmac`
 * and `createWebhookHandler` do.
 */
export function verifyWebhookHmac(input: {
  secret: HmacSecret | readonly HmacSecret[];
  rawBody: Uint8Array | string;
  timestamp: string | number | null | undefined;
  signature: string | null | undefined;
  /** Unix seconds, or ms (values above 1e11), or a Date. Default now. */
  now?: number | Date;
}): { ok: true } | { ok: false; reason: HmacFailure } {
  const secrets = Array.isArray(input.secret) ? input.secret : [input.secret as HmacSecret];
  if (secrets.length === 0) throw new RangeError('verifyWebhookHmac: no webhook secret given');
  for (const secret of secrets) assertSecret(secret, 'verifyWebhookHmac');
  if (input.signature === undefined || input.signature === null || input.signature === '') {
    return { ok: false, reason: 'missing_signature' };
  }
  if (input.timestamp === undefined || input.timestamp === null || input.timestamp === '') {
    return { ok: false, reason: 'missing_timestamp' };
  }
  const timestamp = String(input.timestamp);
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'timestamp_not_integer' };
  const nowMs =
    input.now instanceof Date
      ? input.now.getTime()
      : input.now === undefined
        ? Date.now()
        : input.now > 1e11
          ? input.now
          : input.now * 1000;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > HMAC_WINDOW_SECONDS) {
    return { ok: false, reason: 'timestamp_out_of_window' };
  }
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(input.signature);
  if (match === null) return { ok: false, reason: 'signature_malformed' };
  const given = Buffer.from(match[1] as string, 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = Buffer.from(hmacHex(secret, timestamp, input.rawBody), 'hex');
    ok = timingSafeEqual(given, expected) || ok;
  }
  return ok ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}
