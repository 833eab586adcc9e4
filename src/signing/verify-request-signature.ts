import { readHeader } from './signature-base.js';
import type { Jwk } from './jwks.js';
import { REQUEST_KEY_PURPOSES, REQUEST_SIGNING_TAG, type RequestSignatureError } from './signature-codes.js';
import {
  verifySignedMessage,
  type SignatureFailure,
  type SignatureProfile,
  type SignedMessageParts,
  type VerifySignedMessageOptions,
} from './verify-signed-message.js';
import { requestCallOf, requestsWebhookAuthentication } from './request-call.js';
import { resolveOperation, type OperationResolution } from '../core/resolve-operation.js';
import { decideAdmission, signingModeOf, type SignatureOutcome } from './signature-admission.js';

/** `covers_content_digest` as the library spells it (`optional` is the wire's `either`). */
export type ContentDigestPolicy = 'required' | 'optional' | 'forbidden';
/** The request-signing wire profile: 3.1 keeps legacy Base64URL binary values, 3.2 uses RFC 8941 sf-binary. */
export type RequestSigningProfileVersion = '3.1' | '3.2';

export interface RequestSigningPolicy {
  /** AdCP operations whose unsigned, otherwise unauthenticated calls are refused. */
  requiredFor?: readonly string[];
  /** AdCP operations in shadow mode: a missing or failed signature is recorded, the call continues only under another credential. */
  warnFor?: readonly string[];
  /** JSON-RPC methods (`tasks/cancel`, ...) whose unsigned, otherwise unauthenticated calls are refused. */
  protocolMethodsRequiredFor?: readonly string[];
  /** JSON-RPC methods in shadow mode (as `warnFor`). */
  protocolMethodsWarnFor?: readonly string[];
  /** Default `optional` on the 3.1 profile; 3.2 allows only `required`. */
  coverContentDigest?: ContentDigestPolicy;
  /** Default `3.1`. */
  profile?: RequestSigningProfileVersion;
}

export interface VerifyRequestSignatureOptions extends VerifySignedMessageOptions, RequestSigningPolicy {
  /**
   * Resolves the request's AdCP operation (security.md, "Operation resolution over A2A"). Default:
   * `resolveOperation` over the very bytes verified (the body) and the URL's path, which reads MCP
   * `tools/call`, A2A JSON-RPC (1.0 and 0.3) and A2A HTTP+JSON `message:send`/`message:stream`. Pass
   * your own only for another binding, and give your dispatcher the same answer.
   */
  resolveOperation?: (request: SignedMessageParts) => OperationResolution;
  /** True when the caller presented another credential the server accepts (bearer, API key, mTLS). */
  otherCredential?: boolean;
}

export type RequestSignatureResult =
  /** Unsigned and allowed; under `warn_for`, `warning` names the missing or failed signature (no signer identity). */
  | { ok: true; signed: false; warning?: RequestSignatureError }
  | { ok: true; signed: true; keyid: string; jwk: Jwk; created: number; expires: number; nonce: string }
  /** Refused with `code`; `unauthenticated` when a `warn_for` failure had no other credential to continue under. */
  | { ok: false; code: RequestSignatureError; detail?: string; unauthenticated?: true };

const profiles = new Map<string, SignatureProfile>();

/** The AdCP request profile for one content-digest policy and wire version (memoised). */
export function requestSignatureProfile(
  policy: ContentDigestPolicy = 'optional',
  version: RequestSigningProfileVersion = '3.1',
): SignatureProfile {
  if (version === '3.2' && policy !== 'required') {
    throw new TypeError(`request signing: the 3.2 profile requires coverContentDigest 'required', not '${policy}'`);
  }
  const key = `${policy}/${version}`;
  let profile = profiles.get(key);
  if (profile === undefined) {
    profile = {
      tag: REQUEST_SIGNING_TAG,
      keyDiscovery: true,
      keyPurposes: REQUEST_KEY_PURPOSES,
      binary: version === '3.2' ? 'base64' : 'base64url',
      checkComponents: (covered, hasBody) => checkRequestComponents(covered, hasBody, policy),
      jwkMismatch: 'key_purpose_invalid',
      strictFields: true,
    };
    profiles.set(key, profile);
  }
  return profile;
}

/** Step 6 of the request checklist: the covered components the profile and `policy` demand. */
export function checkRequestComponents(
  covered: readonly string[],
  hasBody: boolean,
  policy: ContentDigestPolicy,
): SignatureFailure | undefined {
  if (!['@method', '@target-uri', '@authority'].every((c) => covered.includes(c))) return 'components_incomplete';
  if (hasBody && !covered.includes('content-type')) return 'components_incomplete';
  const digest = covered.includes('content-digest');
  if (policy === 'required' && hasBody && !digest) return 'components_incomplete';
  if (policy === 'forbidden' && digest) return 'components_unexpected';
  return undefined;
}

/**
 * Verifies an AdCP RFC 9421 request signature (security.md, "Verifier checklist (requests)"):
 * the pre-check (operation resolution first: an unresolvable body is `request_body_malformed`,
 * signed or not), then steps 1-13 in order, composed with the call's mode and other credential
 * (`decideAdmission`). `{ ok: true, signed: false }` for an unsigned call that may pass; otherwise the verified keyid, or the exact taxonomy code to answer in
 * `WWW-Authenticate: Signature error="<code>"`. Never throws on hostile input.
 */
export async function verifyRequestSignature(
  request: SignedMessageParts,
  options: VerifyRequestSignatureOptions,
): Promise<RequestSignatureResult> {
  const profile = requestSignatureProfile(options.coverContentDigest, options.profile);
  // The pre-check starts with resolution (erratum rule 4): an unresolvable body is refused before
  // the header pair is looked at, before any list is consulted, signed or not.
  let resolution: OperationResolution;
  try {
    resolution =
      options.resolveOperation === undefined
        ? resolveOperation({ path: request.url, body: request.body })
        : options.resolveOperation(request);
  } catch {
    resolution = { ok: false, code: 'request_body_malformed', reason: 'the operation resolver failed' };
  }
  if (!resolution.ok) return { ok: false, code: 'request_body_malformed', detail: resolution.reason };
  const call = requestCallOf(resolution);
  const mode = signingModeOf(call, options);
  const fallback = options.otherCredential === true;
  const hasInput = readHeader(request.headers, 'signature-input') !== undefined;
  const hasSignature = readHeader(request.headers, 'signature') !== undefined;
  if (!hasInput && !hasSignature) {
    // Transport error taxonomy, first row: a legacy-authenticated webhook registration must be signed.
    if (call.operation !== undefined && requestsWebhookAuthentication(call.args)) {
      return { ok: false, code: 'request_signature_required' };
    }
    return fromOutcome(mode, { kind: 'absent' }, fallback);
  }
  const result = await verifySignedMessage(request, profile, options);
  if (result.ok) {
    const { keyid, jwk, created, expires, nonce } = result;
    return { ok: true, signed: true, keyid, jwk, created, expires, nonce };
  }
  const code = requestSignatureCode(result.failure);
  const decided = fromOutcome(mode, { kind: 'failed', code }, fallback);
  return !decided.ok && result.detail !== undefined ? { ...decided, detail: result.detail } : decided;
}

/** The request taxonomy's code for one checklist failure. */
export function requestSignatureCode(failure: SignatureFailure): RequestSignatureError {
  return failure === 'target_uri_malformed'
    ? 'request_target_uri_malformed'
    : (`request_signature_${failure}` as RequestSignatureError);
}

function fromOutcome(
  mode: ReturnType<typeof signingModeOf>,
  outcome: SignatureOutcome,
  fallback: boolean,
): RequestSignatureResult {
  const admission = decideAdmission(mode, outcome, fallback);
  switch (admission.action) {
    case 'accept':
      return { ok: true, signed: false };
    case 'accept_with_warning':
      return { ok: true, signed: false, warning: admission.code };
    case 'reject':
      return { ok: false, code: admission.code };
    case 'reject_unauthenticated':
      return { ok: false, code: admission.code, unauthenticated: true };
  }
}
