import { randomBytes, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { importPrivateKey } from '../signing/private-key.js';
import { contentDigest } from '../signing/content-digest.js';
import { buildSignatureBase } from '../signing/signature-base.js';
import { encodeBase64Url } from '../signing/base64.js';
import type { InnerList, Item } from '../signing/structured-fields.js';
import {
  REQUIRED_COMPONENTS,
  WEBHOOK_ALGORITHMS,
  WEBHOOK_SIGNING_TAG,
  MAX_VALIDITY_SECONDS,
} from '../signing/signature-codes.js';
import type { Jwk } from '../signing/jwks.js';

/** The seller's signing key: a private JWK (with `d`) or a Node `KeyObject`, its `kid` and 9421 `alg`. */
export interface WebhookSigningKey {
  keyid: string;
  alg: 'ed25519' | 'ecdsa-p256-sha256';
  privateKey: KeyObject | (Jwk & { d: string });
}

export interface SignWebhookRequestInput {
  url: string;
  body: Uint8Array | string;
  key: WebhookSigningKey;
  method?: string;
  contentType?: string;
  /** Unix seconds, or ms (above 1e11). Default now. */
  now?: number;
  /** Validity in seconds (default and maximum 300). */
  validitySeconds?: number;
  /** 16+ random bytes as unpadded Base64URL; generated when absent (tests pin it). */
  nonce?: string;
}

/**
 * Signs an outbound webhook under the AdCP RFC 9421 webhook profile (label `sig1`, the five
 * required components, tag `adcp/webhook-signing/v1`). Returns the headers to send with `body`.
 * Throws TypeError/RangeError for a bad key or URL (caller misuse).
 */
export function signWebhookRequest(input: SignWebhookRequestInput): Record<string, string> {
  const algorithm = WEBHOOK_ALGORITHMS[input.key.alg];
  if (algorithm === undefined)
    throw new TypeError(`signWebhookRequest: alg must be ed25519 or ecdsa-p256-sha256, not ${input.key.alg}`);
  const validity = input.validitySeconds ?? MAX_VALIDITY_SECONDS;
  if (!(validity > 0 && validity <= MAX_VALIDITY_SECONDS))
    throw new RangeError('signWebhookRequest: validitySeconds must be in (0, 300]');
  const nowValue = input.now ?? Date.now();
  const created = Math.floor(nowValue > 1e11 ? nowValue / 1000 : nowValue);
  const headers: Record<string, string> = {
    'Content-Type': input.contentType ?? 'application/json',
    'Content-Digest': contentDigest(input.body),
  };
  const str = (value: string): Item => ({ kind: 'item', value: { type: 'string', value }, params: [] });
  const params: InnerList = {
    kind: 'inner-list',
    items: REQUIRED_COMPONENTS.map(str),
    params: [
      ['created', { type: 'integer', value: created }],
      ['expires', { type: 'integer', value: created + Math.floor(validity) }],
      ['nonce', { type: 'string', value: input.nonce ?? encodeBase64Url(randomBytes(16)) }],
      ['keyid', { type: 'string', value: input.key.keyid }],
      ['alg', { type: 'string', value: input.key.alg }],
      ['tag', { type: 'string', value: WEBHOOK_SIGNING_TAG }],
    ],
  };
  const base = buildSignatureBase({ method: input.method ?? 'POST', url: input.url, headers }, params);
  if (!base.ok) throw new TypeError(`signWebhookRequest: cannot sign for ${input.url} (${base.reason})`);
  const key = importPrivateKey(input.key.privateKey, 'signWebhookRequest');
  const data = Buffer.from(base.base, 'utf8');
  const signature =
    input.key.alg === 'ed25519'
      ? cryptoSign(null, data, key)
      : cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  const inputValue = base.base.slice(base.base.lastIndexOf('"@signature-params": ') + '"@signature-params": '.length);
  headers['Signature-Input'] = `sig1=${inputValue}`;
  headers.Signature = `sig1=:${encodeBase64Url(signature)}:`;
  return headers;
}
