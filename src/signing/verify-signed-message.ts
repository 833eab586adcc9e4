import { KeyDiscoveryError, type KeyDiscoveryFailure } from './brand-json-keys.js';
import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { parseDictionary, type BareItem, type InnerList } from './structured-fields.js';
import { decodeBase64Strict, decodeBase64UrlStrict, isBase64UrlStrict } from './base64.js';
import { buildSignatureBase, readHeader, type HeaderSource } from './signature-base.js';
import { canonicalizeAuthority, canonicalizeTargetUri } from './canonicalize-target-uri.js';
import { contentDigestDictionaryMatches } from './content-digest.js';
import { importPublicJwk, toJwksSource, type Jwk, type JwksInput } from './jwks.js';
import { remoteJwks } from './remote-jwks.js';
import { MemoryReplayStore, type ReplayStore } from './replay-store.js';
import type { RevocationSource } from './revocation.js';
import type { AdmissionMonitor } from './admission-monitor.js';
import { MAX_VALIDITY_SECONDS, SKEW_SECONDS, SIGNATURE_ALGORITHMS } from './signature-codes.js';

/** The parts of a received HTTP message the verifier reads; `body` is the raw bytes (or their UTF-8 text). */
export interface SignedMessageParts {
  method: string;
  /** The full URL as received (scheme, authority, path, query). */
  url: string;
  headers: HeaderSource;
  body: Uint8Array | string;
}

/**
 * A failed check, named as both AdCP taxonomies name it after their prefix: the request profile
 * answers `request_signature_<failure>` (`request_target_uri_malformed`), the webhook profile
 * `webhook_signature_<failure>` (`webhook_target_uri_malformed`).
 */
export type SignatureFailure =
  | 'header_malformed'
  | 'params_incomplete'
  | 'tag_invalid'
  | 'alg_not_allowed'
  | 'window_invalid'
  | 'components_incomplete'
  | 'components_unexpected'
  | 'key_unknown'
  | 'key_purpose_invalid'
  | 'key_revoked'
  | 'revocation_stale'
  | 'invalid'
  | 'digest_mismatch'
  | 'target_uri_malformed'
  | 'replayed'
  | 'rate_abuse'
  | 'jwks_unavailable'
  | KeyDiscoveryFailure;

/** What separates the AdCP request and webhook profiles; the checklist itself is shared. */
export interface SignatureProfile {
  tag: string;
  /** Whether key discovery failures (`KeyDiscoveryError`) keep their own codes (requests) or read as `jwks_unavailable`. */
  keyDiscovery?: boolean;
  /** JWK `adcp_use` values accepted at step 8. */
  keyPurposes: readonly string[];
  /** `Signature` and `Content-Digest` binary values: legacy unpadded Base64URL, or RFC 8941 padded Base64. */
  binary: 'base64url' | 'base64';
  /** Step 6: the failure for this covered-component list, if any. */
  checkComponents(covered: readonly string[], hasBody: boolean): SignatureFailure | undefined;
  /**
   * The request profile treats a JWK whose kty/crv/alg cannot sign the `alg` as a key-purpose
   * failure at step 8 (request vector 025); the webhook profile as an invalid signature.
   */
  jwkMismatch: 'key_purpose_invalid' | 'invalid';
  /** Request profile: repeated labels/algorithms, multi-valued covered fields and raw non-ASCII hosts are malformed. */
  strictFields: boolean;
}

export interface VerifySignedMessageOptions {
  /** The signer's keys: a `{ keys }` set, an array, a `JwksSource`, or a JWKS URL (fetched, cached). */
  jwks: JwksInput;
  /** Current time: Unix seconds, or ms (above 1e11), a `Date`, or a function returning ms. Default now. */
  now?: number | Date | (() => number);
  /** The `(keyid, nonce)` replay cache. Default: one in-memory cache per `jwks` object. */
  replay?: ReplayStore;
  /** Revocation list (`revoked_kids`, staleness). Default: nothing revoked, never stale. */
  revocation?: RevocationSource;
  /** Signature label to process (default `sig1`); other labels are ignored. */
  label?: string;
  /** New-keyid admission tracking; told of every replay-cache admission. */
  admission?: AdmissionMonitor;
  /**
   * Whether this check runs on libuv's thread pool (default: always). Asked once per message; a
   * server answers "only while other requests are in flight": a lone request has nothing to
   * overlap with, and the hop to the pool and back (two thread wake-ups) costs it more wall time
   * than the ~70 µs check it would move off the event loop.
   */
  offThread?: () => boolean;
  /**
   * The authority (`host[:port]`, or several) this verifier is: the origin signers must have signed
   * for, such as a seller's public URL. A request whose `@target-uri` names another authority is
   * refused at step 10 (`target_uri_malformed`), and the `Host` header must match the URL as
   * always, so a request signed for another seller that shares the keys cannot be replayed here
   * with a forged `Host`. Compared canonicalized (lowercase, default port dropped). Unset: the
   * URL is trusted as given (build it from your configuration, not from `Host`).
   */
  authority?: string | readonly string[];
}

export type SignedMessageResult =
  | { ok: true; keyid: string; jwk: Jwk; created: number; expires: number; nonce: string }
  | { ok: false; failure: SignatureFailure; detail?: string };

type SignatureRefusal = Extract<SignedMessageResult, { ok: false }>;

/** A refusal by the checklist, with its detail when there is one. */
function fail(failure: SignatureFailure, detail?: string): SignatureRefusal {
  return detail === undefined ? { ok: false, failure } : { ok: false, failure, detail };
}

const defaultReplayStores = new WeakMap<object, ReplayStore>();
const NONCE_MIN_BYTES = 16;

/**
 * The RFC 9421 verifier checklist shared by the AdCP request and webhook profiles (security.md,
 * "Verifier checklist (requests)" and "... for webhooks", steps 1-13), in order, short-circuiting
 * on the first failure. Never throws on hostile input.
 */
export async function verifySignedMessage(
  request: SignedMessageParts,
  profile: SignatureProfile,
  options: VerifySignedMessageOptions,
): Promise<SignedMessageResult> {
  const nowSeconds = Math.floor(readNowMs(options.now) / 1000);
  const hasBody = typeof request.body === 'string' ? request.body.length > 0 : request.body.byteLength > 0;
  const read = readSignature(request, profile, options.label ?? 'sig1', nowSeconds, hasBody);
  if (!read.ok) return read;
  const { input, signature, covered, digestDict, keyid, alg, algorithm, created, expires, nonce } = read;

  // 7. Resolve the key, refetching once on a miss.
  const source = toJwksSource(options.jwks, remoteJwks);
  let jwk: Jwk | undefined;
  try {
    const got = source.get(keyid);
    jwk = isPromiseLike(got) ? await got : got;
    if (jwk === undefined && source.refresh !== undefined) {
      await source.refresh();
      jwk = await source.get(keyid);
    }
  } catch (error) {
    // The brand_json_url chain names its own failures (request profile only).
    if (error instanceof KeyDiscoveryError && profile.keyDiscovery === true) return fail(error.failure, error.message);
    return fail('jwks_unavailable', error instanceof Error ? error.message : undefined);
  }
  if (jwk === undefined) return fail('key_unknown');
  // 8. Key purpose (and, for requests, a key that can sign this alg at all).
  const purpose = keyPurposeFailure(jwk, profile, algorithm);
  if (purpose !== undefined) return fail('key_purpose_invalid', purpose || undefined);
  const keyFits = keyFitsAlgorithm(jwk, algorithm);
  // 9. Revocation, before any crypto.
  let revocation = options.revocation === undefined ? 'ok' : options.revocation.check(keyid, nowSeconds);
  if (isPromiseLike(revocation)) revocation = await revocation;
  if (revocation === 'stale') return fail('revocation_stale');
  if (revocation === 'revoked') return fail('key_revoked');
  // 9a. Per-keyid replay-cache cap, before any crypto.
  const replay = options.replay ?? defaultReplayStore(options.jwks);
  let atCapacity = replay.isAtCapacity(keyid, nowSeconds);
  if (isPromiseLike(atCapacity)) atCapacity = await atCapacity;
  if (atCapacity) return fail('rate_abuse');

  // 10. Signature base over canonical @target-uri / @authority, then the signature; the URL must
  // name this verifier's own authority when it has one (cross-seller replay).
  if (options.authority !== undefined && !namesAuthority(request.url, options.authority)) {
    return fail('target_uri_malformed', "the request was signed for another authority than this verifier's");
  }
  const base = buildSignatureBase(request, input);
  if (!base.ok) {
    if (base.reason === 'target_uri_malformed') return fail('target_uri_malformed');
    if (base.component === 'content-digest') return fail('digest_mismatch', 'Content-Digest header missing');
    return fail('invalid', `covered component ${base.component ?? ''} unavailable`);
  }
  const key = importPublicJwk(jwk);
  if (key === undefined || !keyFits) return fail('invalid', 'key type does not match alg');
  const valid =
    options.offThread?.() === false
      ? verifyOnLoop(alg, Buffer.from(base.base, 'utf8'), key, signature)
      : await verifyOffThread(alg, Buffer.from(base.base, 'utf8'), key, signature);
  if (!valid) return fail('invalid');
  // 11. Content-Digest over the received bytes, when covered.
  if (
    covered.includes('content-digest') &&
    !contentDigestDictionaryMatches(digestDict, request.body, profile.binary === 'base64' ? 'base64' : 'either')
  ) {
    return fail('digest_mismatch');
  }
  // 12 + 13. Replay check and insert, atomically, only now that everything else passed.
  let recorded = replay.record(keyid, nonce, expires + SKEW_SECONDS, nowSeconds);
  if (isPromiseLike(recorded)) recorded = await recorded;
  if (recorded === 'replayed') return fail('replayed');
  if (recorded === 'rate_abuse') return fail('rate_abuse');
  options.admission?.observe(keyid, nowSeconds);
  return { ok: true, keyid, jwk, created, expires, nonce };
}

/** Whether `url`'s canonical authority is `authority` (or one of them), canonicalized for its scheme. */
function namesAuthority(url: string, authority: string | readonly string[]): boolean {
  const target = canonicalizeTargetUri(url);
  if (!target.ok) return false;
  const own = typeof authority === 'string' ? [authority] : authority;
  return own.some((a) => {
    const canonical = canonicalizeAuthority(a, target.scheme);
    return canonical.ok && canonical.authority === target.authority;
  });
}

type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[keyof typeof SIGNATURE_ALGORITHMS];

/** What steps 1-6 read from the headers, for steps 7-13. */
interface ReadSignature {
  ok: true;
  input: InnerList;
  signature: Buffer;
  covered: string[];
  digestDict: ReturnType<typeof parseDictionary>;
  keyid: string;
  alg: string;
  algorithm: SignatureAlgorithm;
  created: number;
  expires: number;
  nonce: string;
}

/** Steps 1-6 of the checklist (no I/O, no state): the headers parsed and checked, in order. */
function readSignature(
  request: SignedMessageParts,
  profile: SignatureProfile,
  label: string,
  nowSeconds: number,
  hasBody: boolean,
): ReadSignature | SignatureRefusal {
  const strict = { rejectDuplicateKeys: profile.strictFields };

  // 1. Parse Signature-Input and Signature; the two are a bound pair.
  const inputHeader = readHeader(request.headers, 'signature-input');
  const signatureHeader = readHeader(request.headers, 'signature');
  if (inputHeader === undefined || signatureHeader === undefined) {
    return fail('header_malformed', 'Signature and Signature-Input must both be present');
  }
  const inputs = parseDictionary(inputHeader, strict);
  const signatures = parseDictionary(signatureHeader, strict);
  if (inputs === undefined || signatures === undefined) return fail('header_malformed');
  const input = inputs.get(label);
  const signatureMember = signatures.get(label);
  if (input === undefined || signatureMember === undefined) {
    return fail('header_malformed', `no '${label}' label in both headers`);
  }
  if (input.kind !== 'inner-list' || signatureMember.kind !== 'item' || signatureMember.value.type !== 'binary') {
    return fail('header_malformed');
  }
  const signatureText = signatureMember.value.value;
  const signature =
    profile.binary === 'base64' ? decodeBase64Strict(signatureText) : decodeBase64UrlStrict(signatureText);
  if (signature === undefined) return fail('header_malformed', `Signature is not ${profile.binary} sf-binary`);
  const covered = input.items.map((i) => (i.value.type === 'string' ? i.value.value : ''));
  // Content-Digest is parsed once: strictly here for the request profile, reused at step 11.
  const digestHeader = readHeader(request.headers, 'content-digest');
  const digestDict =
    digestHeader === undefined
      ? undefined
      : parseDictionary(digestHeader, { rejectDuplicateKeys: profile.strictFields });
  if (profile.strictFields) {
    const malformed = checkStrictFields(request, covered, digestHeader !== undefined && digestDict === undefined);
    if (malformed !== undefined) return fail('header_malformed', malformed);
  }

  // 2. Every required parameter present, each of its type.
  const params = readParams(input);
  if (params === 'incomplete') return fail('params_incomplete');
  if (params === 'malformed') return fail('header_malformed', 'a signature parameter has the wrong type');
  const { created, expires, nonce, keyid, alg, tag } = params;

  // 3. Tag, byte for byte.
  if (tag !== profile.tag) return fail('tag_invalid');
  // 4. Algorithm allowlist, independent of library defaults.
  const algorithm = Object.hasOwn(SIGNATURE_ALGORITHMS, alg) ? SIGNATURE_ALGORITHMS[alg] : undefined;
  if (algorithm === undefined) return fail('alg_not_allowed');
  // 5. Window.
  if (
    expires <= created ||
    created > nowSeconds + SKEW_SECONDS ||
    expires < nowSeconds - SKEW_SECONDS ||
    expires - created > MAX_VALIDITY_SECONDS
  ) {
    return fail('window_invalid');
  }
  // 6. Covered components.
  const components = profile.checkComponents(covered, hasBody);
  if (components !== undefined) return fail(components);
  if (!isBase64UrlOfAtLeast(nonce, NONCE_MIN_BYTES)) {
    return fail('header_malformed', 'nonce must be unpadded Base64URL of at least 16 bytes');
  }
  return {
    ok: true,
    input,
    signature,
    covered,
    digestDict,
    keyid,
    alg,
    algorithm,
    created,
    expires,
    nonce,
  };
}

/** Step 8: `undefined` when the key may verify this signature, else why not ('' for its purpose). */
function keyPurposeFailure(jwk: Jwk, profile: SignatureProfile, algorithm: SignatureAlgorithm): string | undefined {
  if (
    jwk.use !== 'sig' ||
    !Array.isArray(jwk.key_ops) ||
    !jwk.key_ops.includes('verify') ||
    typeof jwk.adcp_use !== 'string' ||
    !profile.keyPurposes.includes(jwk.adcp_use)
  ) {
    return '';
  }
  if (!keyFitsAlgorithm(jwk, algorithm) && profile.jwkMismatch === 'key_purpose_invalid') {
    return 'JWK kty/crv/alg does not match the signature alg';
  }
  return undefined;
}

function keyFitsAlgorithm(jwk: Jwk, algorithm: SignatureAlgorithm): boolean {
  return (
    jwk.kty === algorithm.kty && jwk.crv === algorithm.crv && (jwk.alg === undefined || jwk.alg === algorithm.jwkAlg)
  );
}

/** Whether `text` is strict unpadded Base64URL of at least `bytes` bytes (its length says how many, no decoding needed). */
function isBase64UrlOfAtLeast(text: string, bytes: number): boolean {
  return Math.floor((text.length * 3) / 4) >= bytes && isBase64UrlStrict(text);
}

/**
 * Step 1 for the request profile: a covered field that is not a list must carry one value
 * (vectors 022, 023), and the authority must arrive as an A-label, never raw non-ASCII (026).
 */
function checkStrictFields(
  request: SignedMessageParts,
  covered: readonly string[],
  digestMalformed: boolean,
): string | undefined {
  // An all-ASCII URL (the usual case) has an ASCII authority: only other URLs need the authority cut out.
  if (NON_ASCII.test(request.url)) {
    const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(request.url)?.[1] ?? '';
    if (NON_ASCII.test(authority)) return 'the authority is not ASCII (send the A-label)';
  }
  if (covered.includes('content-type')) {
    const value = readHeader(request.headers, 'content-type');
    if (value !== undefined && hasTopLevelComma(value)) return 'Content-Type carries more than one value';
  }
  if (digestMalformed) return 'Content-Digest is malformed or repeats an algorithm';
  return undefined;
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

function hasTopLevelComma(value: string): boolean {
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '\\' && quoted) i += 1;
    else if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) return true;
  }
  return false;
}

/**
 * `crypto.verify` on libuv's thread pool (the callback form): an Ed25519 check is ~70 µs of CPU,
 * which would otherwise hold the event loop and every other request behind it. False on any error.
 */
function verifyOffThread(alg: string, data: Buffer, key: KeyObject, signature: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (error: Error | null, valid: boolean): void => resolve(error === null && valid === true);
    try {
      if (alg === 'ed25519') cryptoVerify(null, data, key, signature, done);
      else cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature, done);
    } catch {
      resolve(false);
    }
  });
}

/** The same check on the calling thread (see `offThread`). False on any error. */
function verifyOnLoop(alg: string, data: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return alg === 'ed25519'
      ? cryptoVerify(null, data, key, signature)
      : cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

// A store or key source that answers synchronously is read without an await (a microtask per
// step); one that returns a promise is awaited as before.
function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

type Params = { created: number; expires: number; nonce: string; keyid: string; alg: string; tag: string };

function readParams(input: InnerList): Params | 'incomplete' | 'malformed' {
  // One pass over the parameters (the parser refuses a repeated one, so each name is read once).
  let created: BareItem | undefined;
  let expires: BareItem | undefined;
  let nonce: BareItem | undefined;
  let keyid: BareItem | undefined;
  let alg: BareItem | undefined;
  let tag: BareItem | undefined;
  for (const [name, value] of input.params) {
    if (name === 'created') created = value;
    else if (name === 'expires') expires = value;
    else if (name === 'nonce') nonce = value;
    else if (name === 'keyid') keyid = value;
    else if (name === 'alg') alg = value;
    else if (name === 'tag') tag = value;
  }
  if (
    created === undefined ||
    expires === undefined ||
    nonce === undefined ||
    keyid === undefined ||
    alg === undefined ||
    tag === undefined
  ) {
    return 'incomplete';
  }
  if (created.type !== 'integer' || expires.type !== 'integer') return 'malformed';
  if (nonce.type !== 'string' || keyid.type !== 'string' || alg.type !== 'string' || tag.type !== 'string') {
    return 'malformed';
  }
  return {
    created: created.value,
    expires: expires.value,
    nonce: nonce.value,
    keyid: keyid.value,
    alg: alg.value,
    tag: tag.value,
  };
}

function defaultReplayStore(jwks: JwksInput): ReplayStore {
  const owner = typeof jwks === 'string' ? toJwksSource(jwks, remoteJwks) : jwks;
  let store = defaultReplayStores.get(owner);
  if (store === undefined) {
    store = new MemoryReplayStore();
    defaultReplayStores.set(owner, store);
  }
  return store;
}

/** Milliseconds from the `now` option (seconds and ms both accepted; see the option's doc). */
export function readNowMs(now: number | Date | (() => number) | undefined): number {
  if (now === undefined) return Date.now();
  if (now instanceof Date) return now.getTime();
  const value = typeof now === 'function' ? now() : now;
  return value > 1e11 ? value : value * 1000;
}
