import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { parseDictionary, type InnerList } from '../signing/structured-fields.js';
import { decodeBase64UrlStrict } from '../signing/base64.js';
import { buildSignatureBase, readHeader, type HeaderSource } from '../signing/signature-base.js';
import { contentDigestMatches } from '../signing/content-digest.js';
import { importPublicJwk, toJwksSource, type Jwk, type JwksInput } from '../signing/jwks.js';
import { remoteJwks } from '../signing/remote-jwks.js';
import { MemoryReplayStore, type ReplayStore } from '../signing/replay-store.js';
import type { RevocationSource } from '../signing/revocation.js';
import type { AdmissionMonitor } from '../signing/admission-monitor.js';
import {
  MAX_VALIDITY_SECONDS,
  REQUIRED_COMPONENTS,
  SKEW_SECONDS,
  WEBHOOK_ALGORITHMS,
  WEBHOOK_KEY_PURPOSES,
  WEBHOOK_SIGNING_TAG,
  type WebhookSignatureError,
} from '../signing/signature-codes.js';

/** The parts of a received webhook the verifier reads; `body` is the raw bytes (or their UTF-8 text). */
export interface WebhookRequestParts {
  method: string;
  /** The full URL the sender posted to (scheme, authority, path, query). */
  url: string;
  headers: HeaderSource;
  body: Uint8Array | string;
}

export interface VerifyWebhookSignatureOptions {
  /** The seller's keys: a `{ keys }` set, an array, a `JwksSource`, or the `jwks_uri` (fetched, cached). */
  jwks: JwksInput;
  /**
   * Current time: Unix seconds, or milliseconds (any value above 1e11 is read as ms), a `Date`, or
   * a function returning ms. Default `Date.now()`.
   */
  now?: number | Date | (() => number);
  /**
   * The `(keyid, nonce)` replay cache. Default: one in-memory cache per `jwks` object, so pass the
   * same `jwks` object (or an explicit store) on every call; a fleet needs a shared store.
   */
  replay?: ReplayStore;
  /** Revocation list (`revoked_kids`, staleness). Default: nothing revoked, never stale. */
  revocation?: RevocationSource;
  /** Signature label to process (default `sig1`); other labels are ignored. */
  label?: string;
  /** New-keyid admission tracking (security.md MUST); told of every replay-cache admission. */
  admission?: AdmissionMonitor;
}

export type WebhookSignatureResult =
  | { ok: true; keyid: string; jwk: Jwk; created: number; expires: number; nonce: string }
  | { ok: false; reason: WebhookSignatureError; detail?: string };

const defaultReplayStores = new WeakMap<object, ReplayStore>();
const NONCE_MIN_BYTES = 16;

/**
 * Verifies an AdCP RFC 9421 webhook signature (security.md, "Verifier checklist for webhooks",
 * steps 1-13). Returns `{ ok: true, keyid }` or `{ ok: false, reason }` with the taxonomy code;
 * never throws on hostile input. Body well-formedness (step 14) is the caller's next check.
 */
export async function verifyWebhookSignature(
  request: WebhookRequestParts,
  options: VerifyWebhookSignatureOptions,
): Promise<WebhookSignatureResult> {
  const fail = (reason: WebhookSignatureError, detail?: string): WebhookSignatureResult =>
    detail === undefined ? { ok: false, reason } : { ok: false, reason, detail };
  const nowSeconds = Math.floor(readNowMs(options.now) / 1000);
  const label = options.label ?? 'sig1';

  // 1. Parse Signature-Input and Signature; the two are a bound pair.
  const inputHeader = readHeader(request.headers, 'signature-input');
  const signatureHeader = readHeader(request.headers, 'signature');
  if (inputHeader === undefined || signatureHeader === undefined) {
    return fail('webhook_signature_header_malformed', 'Signature and Signature-Input must both be present');
  }
  const inputs = parseDictionary(inputHeader);
  const signatures = parseDictionary(signatureHeader);
  if (inputs === undefined || signatures === undefined) return fail('webhook_signature_header_malformed');
  const input = inputs.get(label);
  const signatureMember = signatures.get(label);
  if (input === undefined || signatureMember === undefined) {
    return fail('webhook_signature_header_malformed', `no '${label}' label in both headers`);
  }
  if (input.kind !== 'inner-list' || signatureMember.kind !== 'item' || signatureMember.value.type !== 'binary') {
    return fail('webhook_signature_header_malformed');
  }
  const signature = decodeBase64UrlStrict(signatureMember.value.value);
  if (signature === undefined) return fail('webhook_signature_header_malformed', 'Signature is not unpadded Base64URL');

  // 2. Every required parameter present, each of its type.
  const params = readParams(input);
  if (params === 'incomplete') return fail('webhook_signature_params_incomplete');
  if (params === 'malformed')
    return fail('webhook_signature_header_malformed', 'a signature parameter has the wrong type');
  const { created, expires, nonce, keyid, alg, tag } = params;

  // 3. Tag, byte for byte.
  if (tag !== WEBHOOK_SIGNING_TAG) return fail('webhook_signature_tag_invalid');
  // 4. Algorithm allowlist, independent of library defaults.
  const algorithm = Object.hasOwn(WEBHOOK_ALGORITHMS, alg) ? WEBHOOK_ALGORITHMS[alg] : undefined;
  if (algorithm === undefined) return fail('webhook_signature_alg_not_allowed');
  // 5. Window.
  if (
    expires <= created ||
    created > nowSeconds + SKEW_SECONDS ||
    expires < nowSeconds - SKEW_SECONDS ||
    expires - created > MAX_VALIDITY_SECONDS
  ) {
    return fail('webhook_signature_window_invalid');
  }
  // 6. Covered components, content-digest included.
  const covered = input.items.map((i) => (i.value.type === 'string' ? i.value.value : ''));
  if (!REQUIRED_COMPONENTS.every((c) => covered.includes(c))) return fail('webhook_signature_components_incomplete');
  const nonceBytes = decodeBase64UrlStrict(nonce);
  if (nonceBytes === undefined || nonceBytes.length < NONCE_MIN_BYTES) {
    return fail('webhook_signature_header_malformed', 'nonce must be unpadded Base64URL of at least 16 bytes');
  }

  // 7. Resolve the key, refetching once on a miss.
  const source = toJwksSource(options.jwks, remoteJwks);
  let jwk: Jwk | undefined;
  try {
    jwk = await source.get(keyid);
    if (jwk === undefined && source.refresh !== undefined) {
      await source.refresh();
      jwk = await source.get(keyid);
    }
  } catch (error) {
    return fail('webhook_signature_jwks_unavailable', error instanceof Error ? error.message : undefined);
  }
  if (jwk === undefined) return fail('webhook_signature_key_unknown');
  // 8. Key purpose.
  if (
    jwk.use !== 'sig' ||
    !Array.isArray(jwk.key_ops) ||
    !jwk.key_ops.includes('verify') ||
    typeof jwk.adcp_use !== 'string' ||
    !WEBHOOK_KEY_PURPOSES.includes(jwk.adcp_use)
  ) {
    return fail('webhook_signature_key_purpose_invalid');
  }
  // 9. Revocation, before any crypto.
  const revocation = options.revocation === undefined ? 'ok' : await options.revocation.check(keyid, nowSeconds);
  if (revocation === 'stale') return fail('webhook_signature_revocation_stale');
  if (revocation === 'revoked') return fail('webhook_signature_key_revoked');
  // 9a. Per-keyid replay-cache cap, before any crypto.
  const replay = options.replay ?? defaultReplayStore(options.jwks);
  if (await replay.isAtCapacity(keyid, nowSeconds)) return fail('webhook_signature_rate_abuse');

  // 10. Signature base over canonical @target-uri / @authority, then the signature.
  const base = buildSignatureBase(request, input);
  if (!base.ok) {
    if (base.reason === 'target_uri_malformed') return fail('webhook_target_uri_malformed');
    if (base.component === 'content-digest')
      return fail('webhook_signature_digest_mismatch', 'Content-Digest header missing');
    return fail('webhook_signature_invalid', `covered component ${base.component ?? ''} unavailable`);
  }
  const key = importPublicJwk(jwk);
  if (
    key === undefined ||
    jwk.kty !== algorithm.kty ||
    jwk.crv !== algorithm.crv ||
    (jwk.alg !== undefined && jwk.alg !== algorithm.jwkAlg)
  ) {
    return fail('webhook_signature_invalid', 'key type does not match alg');
  }
  if (!(await verifyOffThread(alg, Buffer.from(base.base, 'utf8'), key, signature)))
    return fail('webhook_signature_invalid');
  // 11. Content-Digest over the received bytes.
  if (!contentDigestMatches(readHeader(request.headers, 'content-digest'), request.body)) {
    return fail('webhook_signature_digest_mismatch');
  }
  // 12 + 13. Replay check and insert, atomically, only now that everything else passed.
  const recorded = await replay.record(keyid, nonce, expires + SKEW_SECONDS, nowSeconds);
  if (recorded === 'replayed') return fail('webhook_signature_replayed');
  if (recorded === 'rate_abuse') return fail('webhook_signature_rate_abuse');
  options.admission?.observe(keyid, nowSeconds);
  return { ok: true, keyid, jwk, created, expires, nonce };
}

/**
 * `crypto.verify` on libuv's thread pool (the callback form): an Ed25519 check is ~70 µs of CPU,
 * which would otherwise hold the event loop and every other delivery behind it. False on any error.
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

type Params = { created: number; expires: number; nonce: string; keyid: string; alg: string; tag: string };

function readParams(input: InnerList): Params | 'incomplete' | 'malformed' {
  const map = new Map(input.params);
  const names = ['created', 'expires', 'nonce', 'keyid', 'alg', 'tag'] as const;
  if (!names.every((n) => map.has(n))) return 'incomplete';
  const created = map.get('created');
  const expires = map.get('expires');
  const strings = (['nonce', 'keyid', 'alg', 'tag'] as const).map((n) => map.get(n));
  if (created?.type !== 'integer' || expires?.type !== 'integer') return 'malformed';
  if (!strings.every((s) => s?.type === 'string')) return 'malformed';
  const [nonce, keyid, alg, tag] = strings.map((s) => s?.value as string) as [string, string, string, string];
  return { created: created.value, expires: expires.value, nonce, keyid, alg, tag };
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
