import { randomFillSync, sign as cryptoSign } from 'node:crypto';
import { digestOf } from './one-shot-digest.js';
import { buildSignatureBase } from './signature-base.js';
import { encodeBase64Url } from './base64.js';
import { importPrivateKey, type PrivateKeyInput } from './private-key.js';
import type { InnerList, Item } from './structured-fields.js';
import { MAX_VALIDITY_SECONDS, REQUEST_SIGNING_TAG } from './signature-codes.js';
import type { RequestSigningProfileVersion } from './verify-request-signature.js';

/** The caller's request-signing key: `keyid` as published in its JWKS, the private half, the algorithm. */
export interface RequestSigningKey {
  keyid: string;
  privateKey: PrivateKeyInput;
  /** `ed25519` (default) or `es256` (= RFC 9421 `ecdsa-p256-sha256`). */
  alg?: 'ed25519' | 'es256' | 'ecdsa-p256-sha256';
}

export interface RequestSigningOptions extends RequestSigningKey {
  /** Cover `content-digest` (binds the body). Default true: the spec's advice, and the 3.2 rule. */
  coverContentDigest?: boolean;
  /** Wire profile: `3.1` (legacy Base64URL binary values, default) or `3.2` (RFC 8941 sf-binary). */
  profile?: RequestSigningProfileVersion;
  /** Validity in seconds, at most 300. Default 300. */
  validitySeconds?: number;
}

export interface SignRequestInput {
  method: string;
  url: string;
  /** The headers the request will carry; `content-type` is read from here when there is a body. */
  headers?: Record<string, string> | Headers;
  /** The exact bytes that go on the wire (serialise once, sign and send the same bytes). */
  body?: Uint8Array | string;
  /** Unix seconds, or ms (above 1e11). Default now. */
  now?: number;
  /** 16+ random bytes as unpadded Base64URL; fresh when absent (tests pin it). */
  nonce?: string;
}

const RFC9421_ALG = {
  ed25519: 'ed25519',
  es256: 'ecdsa-p256-sha256',
  'ecdsa-p256-sha256': 'ecdsa-p256-sha256',
} as const;

// Nonces come from a pool of CSPRNG bytes refilled every 256 nonces: one `randomBytes(16)` per
// request cost more than hashing the body. Each nonce takes its own 16 bytes, never reused.
const NONCE_BYTES = 16;
const noncePool = Buffer.alloc(NONCE_BYTES * 256);
let nonceOffset = noncePool.length;

/** 16 fresh random bytes as unpadded Base64URL. */
export function freshNonce(): string {
  if (nonceOffset === noncePool.length) {
    randomFillSync(noncePool);
    nonceOffset = 0;
  }
  const nonce = noncePool.toString('base64url', nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

/** Checks signing options once (at client construction): TypeError/RangeError on misuse. */
export function checkRequestSigningOptions(options: RequestSigningOptions): void {
  if (options === null || typeof options !== 'object') throw new TypeError('signing: pass { keyid, privateKey, alg }');
  if (typeof options.keyid !== 'string' || options.keyid === '' || /["\\\r\n]/.test(options.keyid)) {
    throw new TypeError('signing: keyid must be a non-empty string without quotes, backslashes or line breaks');
  }
  if (options.alg !== undefined && !Object.hasOwn(RFC9421_ALG, options.alg)) {
    throw new TypeError(`signing: alg must be 'ed25519' or 'es256', not ${String(options.alg)}`);
  }
  if (options.profile !== undefined && options.profile !== '3.1' && options.profile !== '3.2') {
    throw new TypeError(`signing: profile must be '3.1' or '3.2', not ${String(options.profile)}`);
  }
  if (options.profile === '3.2' && options.coverContentDigest === false) {
    throw new TypeError('signing: the 3.2 profile always covers content-digest');
  }
  const validity = options.validitySeconds ?? MAX_VALIDITY_SECONDS;
  if (!(validity > 0 && validity <= MAX_VALIDITY_SECONDS))
    throw new RangeError('signing: validitySeconds must be in (0, 300]');
  const key = importPrivateKey(options.privateKey, 'signing');
  const expected = (options.alg ?? 'ed25519') === 'ed25519' ? 'ed25519' : 'ec';
  if (key.asymmetricKeyType !== expected) {
    throw new TypeError(`signing: privateKey is ${String(key.asymmetricKeyType)}, alg asks for ${expected}`);
  }
}

/**
 * Signs one request under the AdCP RFC 9421 request profile (security.md, "AdCP RFC 9421
 * profile"): label `sig1`, `@method` `@target-uri` `@authority`, `content-type` with a body,
 * `content-digest` when covered, `created`/`expires` (at most 300 s apart), a fresh `nonce`,
 * `keyid`, `alg` and tag `adcp/request-signing/v1`. Returns the headers to add.
 */
export function signRequest(input: SignRequestInput, options: RequestSigningOptions): Record<string, string> {
  const alg = RFC9421_ALG[options.alg ?? 'ed25519'];
  const sfBinary = options.profile === '3.2';
  const encode = (bytes: Buffer): string => (sfBinary ? bytes.toString('base64') : encodeBase64Url(bytes));
  const nowValue = input.now ?? Date.now();
  const created = Math.floor(nowValue > 1e11 ? nowValue / 1000 : nowValue);
  const body = input.body ?? '';
  const hasBody = typeof body === 'string' ? body.length > 0 : body.byteLength > 0;
  const given = input.headers instanceof Headers ? input.headers : new Headers(input.headers);
  const headers: Record<string, string> = {};
  const components = ['@method', '@target-uri', '@authority'];
  if (hasBody) {
    const contentType = given.get('content-type') ?? 'application/json';
    headers['content-type'] = contentType;
    components.push('content-type');
    if (options.coverContentDigest !== false || sfBinary) {
      headers['content-digest'] = `sha-256=:${encode(digestOf('sha256', body))}:`;
      components.push('content-digest');
    }
  }
  const str = (value: string): Item => ({ kind: 'item', value: { type: 'string', value }, params: [] });
  const params: InnerList = {
    kind: 'inner-list',
    items: components.map(str),
    params: [
      ['created', { type: 'integer', value: created }],
      ['expires', { type: 'integer', value: created + Math.floor(options.validitySeconds ?? MAX_VALIDITY_SECONDS) }],
      ['nonce', { type: 'string', value: input.nonce ?? freshNonce() }],
      ['keyid', { type: 'string', value: options.keyid }],
      ['alg', { type: 'string', value: alg }],
      ['tag', { type: 'string', value: REQUEST_SIGNING_TAG }],
    ],
  };
  const base = buildSignatureBase({ method: input.method, url: input.url, headers }, params);
  if (!base.ok) throw new TypeError(`signRequest: cannot sign for ${input.url} (${base.reason})`);
  const key = importPrivateKey(options.privateKey, 'signRequest');
  const data = Buffer.from(base.base, 'utf8');
  const signature =
    alg === 'ed25519' ? cryptoSign(null, data, key) : cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
  const marker = '"@signature-params": ';
  headers['signature-input'] = `sig1=${base.base.slice(base.base.lastIndexOf(marker) + marker.length)}`;
  headers.signature = `sig1=:${encode(signature)}:`;
  return headers;
}
