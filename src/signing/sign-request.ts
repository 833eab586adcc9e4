import { randomFillSync, sign as cryptoSign } from 'node:crypto';
import { digestOf } from './one-shot-digest.js';
import { canonicalizeTargetUri } from './canonicalize-target-uri.js';
import { importPrivateKey, type PrivateKeyInput } from './private-key.js';
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

/** A signer with its options read once: the key imported, the fixed parameters serialised. */
export type RequestSigner = (input: SignRequestInput) => Record<string, string>;

/**
 * Prepares `signRequest` for one set of options (checked by the caller): the key, the algorithm
 * and the constant tail of `@signature-params` (`keyid`, `alg`, `tag`) are read once, so each
 * request only hashes its body, builds its base and signs. A signing fetch keeps one.
 */
export function createRequestSigner(options: RequestSigningOptions): RequestSigner {
  const alg = RFC9421_ALG[options.alg ?? 'ed25519'];
  const sfBinary = options.profile === '3.2';
  const coverDigest = options.coverContentDigest !== false || sfBinary;
  const validity = Math.floor(options.validitySeconds ?? MAX_VALIDITY_SECONDS);
  const key = importPrivateKey(options.privateKey, 'signRequest');
  const tail = `;keyid=${sfString(options.keyid)};alg=${sfString(alg)};tag=${sfString(REQUEST_SIGNING_TAG)}`;
  return (input) => {
    const nowValue = input.now ?? Date.now();
    const created = Math.floor(nowValue > 1e11 ? nowValue / 1000 : nowValue);
    const body = input.body ?? '';
    const hasBody = typeof body === 'string' ? body.length > 0 : body.byteLength > 0;
    const target = canonicalizeTargetUri(input.url);
    if (!target.ok) throw new TypeError(`signRequest: cannot sign for ${input.url} (target_uri_malformed)`);
    const headers: Record<string, string> = {};
    // RFC 9421 §2.5: one line per covered component, in the order of the Signature-Input list.
    let components = '"@method" "@target-uri" "@authority"';
    let lines = `"@method": ${input.method.toUpperCase()}\n"@target-uri": ${target.targetUri}\n"@authority": ${target.authority}\n`;
    if (hasBody) {
      const contentType = contentTypeOf(input.headers) ?? 'application/json';
      headers['content-type'] = contentType;
      components += ' "content-type"';
      lines += `"content-type": ${contentType.trim()}\n`;
      if (coverDigest) {
        const digest = digestOf('sha256', body);
        const value = `sha-256=:${digest.toString(sfBinary ? 'base64' : 'base64url')}:`;
        headers['content-digest'] = value;
        components += ' "content-digest"';
        lines += `"content-digest": ${value}\n`;
      }
    }
    const nonce = input.nonce === undefined ? `"${freshNonce()}"` : sfString(input.nonce);
    const params = `(${components});created=${created};expires=${created + validity};nonce=${nonce}${tail}`;
    const data = Buffer.from(`${lines}"@signature-params": ${params}`, 'utf8');
    const signature =
      alg === 'ed25519' ? cryptoSign(null, data, key) : cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    headers['signature-input'] = `sig1=${params}`;
    headers.signature = `sig1=:${signature.toString(sfBinary ? 'base64' : 'base64url')}:`;
    return headers;
  };
}

/**
 * Signs one request under the AdCP RFC 9421 request profile (security.md, "AdCP RFC 9421
 * profile"): label `sig1`, `@method` `@target-uri` `@authority`, `content-type` with a body,
 * `content-digest` when covered, `created`/`expires` (at most 300 s apart), a fresh `nonce`,
 * `keyid`, `alg` and tag `adcp/request-signing/v1`. Returns the headers to add.
 */
export function signRequest(input: SignRequestInput, options: RequestSigningOptions): Record<string, string> {
  return createRequestSigner(options)(input);
}

/** An RFC 8941 sf-string (§4.1.6): quoted, with `\` and `"` escaped. */
function sfString(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The request's `content-type`, as a fetch `Headers` would give it: found case-insensitively,
 * leading and trailing HTTP whitespace removed, several spellings joined. A value with a line
 * break or NUL is refused as `Headers` refuses it (it would add a line to the signature base).
 */
function contentTypeOf(headers: Record<string, string> | Headers | undefined): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get('content-type') ?? undefined;
  let found: string | undefined;
  let count = 0;
  for (const name in headers) {
    if (name.length === 12 && name.toLowerCase() === 'content-type') {
      found = headers[name];
      count += 1;
    }
  }
  if (count > 1) return new Headers(headers).get('content-type') ?? undefined;
  if (found === undefined) return undefined;
  if (found === lastContentType) return lastContentType; // already checked and trimmed (the transports send one)
  const value = String(found).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(value)) throw new TypeError('signRequest: content-type holds a line break or NUL');
  if (value === found) lastContentType = value;
  return value;
}

let lastContentType: string | undefined;
