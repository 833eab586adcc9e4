import { createHash } from 'node:crypto';

/**
 * RFC 8785 (JCS) serialization of a parsed JSON value: object members sorted by UTF-16 code
 * units, ECMAScript number and string serialization. Used to fingerprint a webhook payload so a
 * retry with other whitespace or member order is the same event and a changed payload is not.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/** SHA-256 (hex) of the JCS form: the payload fingerprint bound to an `idempotency_key`. */
export function payloadFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
