import type { RequestCall } from './request-call.js';
import type { RequestSignatureError } from './signature-codes.js';

/**
 * Which `request_signing` list a call falls under (security.md, "Transport capability
 * advertisement" and "Protocol-method coverage"). AdCP operations (`tools/call`, A2A invocations)
 * are matched only against the operation lists, other JSON-RPC methods only against the
 * `protocol_methods_*` lists: the two namespaces never cross.
 */
export type SigningMode =
  | 'required_for'
  | 'warn_for'
  | 'supported_for'
  | 'protocol_methods_required_for'
  | 'protocol_methods_warn_for'
  | 'protocol_methods_supported_for';

export interface SigningLists {
  requiredFor?: readonly string[];
  warnFor?: readonly string[];
  protocolMethodsRequiredFor?: readonly string[];
  protocolMethodsWarnFor?: readonly string[];
}

/**
 * The mode of one call; a call on no list is `supported_for` (a signature, when present, is
 * verified). Both namespaces apply (security.md, "Operation resolution over A2A", rule 5): an A2A
 * `SendMessage` carrying `create_media_buy` matches `required_for` through its operation and
 * `protocol_methods_required_for` through its method, and either match requires the signature.
 * `tools/call` itself is never a protocol method.
 */
export function signingModeOf(call: RequestCall, lists: SigningLists): SigningMode {
  const operation = call.operation;
  const method = call.method !== undefined && call.method !== 'tools/call' ? call.method : undefined;
  const inOperations = (list: readonly string[] | undefined) =>
    operation !== undefined && list?.includes(operation) === true;
  const inMethods = (list: readonly string[] | undefined) => method !== undefined && list?.includes(method) === true;
  if (inOperations(lists.requiredFor)) return 'required_for';
  if (inMethods(lists.protocolMethodsRequiredFor)) return 'protocol_methods_required_for';
  if (inOperations(lists.warnFor)) return 'warn_for';
  if (inMethods(lists.protocolMethodsWarnFor)) return 'protocol_methods_warn_for';
  return operation !== undefined || method === undefined ? 'supported_for' : 'protocol_methods_supported_for';
}

/** What the checklist made of the request's signature headers. */
export type SignatureOutcome =
  { kind: 'absent' } | { kind: 'verified'; keyid: string } | { kind: 'failed'; code: RequestSignatureError };

/** The verifier's decision for one request (the body-integrity vectors' `expected.action`). */
export type Admission =
  /** A verified signature: the keyid is the signer's identity. */
  | { action: 'accept'; source: 'signature'; keyid: string }
  /** No signature: the caller's other credential (`fallback`) or none (`none`: the server's own rules decide). */
  | { action: 'accept'; source: 'fallback' | 'none' }
  /** `warn_for`: a missing or failed signature recorded, the call continues under its other credential only. */
  | { action: 'accept_with_warning'; source: 'fallback'; code: RequestSignatureError }
  /** Refused with the taxonomy code (`WWW-Authenticate: Signature error="<code>"`). */
  | { action: 'reject'; code: RequestSignatureError }
  /** `warn_for` with a failed signature and no other credential: refused as unauthenticated. */
  | { action: 'reject_unauthenticated'; code: RequestSignatureError };

const isRequired = (mode: SigningMode): boolean => mode === 'required_for' || mode === 'protocol_methods_required_for';
const isWarn = (mode: SigningMode): boolean => mode === 'warn_for' || mode === 'protocol_methods_warn_for';

/**
 * Composes the checklist's outcome with the call's mode and the caller's other credential
 * (security.md, "Composition with fallback authenticators"):
 * - a malformed or partial header pair always rejects, whatever the mode or credential;
 * - a signed request is judged on its merits: a failure rejects with its code, except under
 *   `warn_for`, where it is recorded and the call continues only under the other credential
 *   (establishing no signer identity), or is refused as unauthenticated without one;
 * - an unsigned request is refused with `request_signature_required` only under `required_for`
 *   with no other credential; under `warn_for` with a credential it continues with a warning.
 */
export function decideAdmission(mode: SigningMode, outcome: SignatureOutcome, fallback: boolean): Admission {
  if (outcome.kind === 'verified') return { action: 'accept', source: 'signature', keyid: outcome.keyid };
  if (outcome.kind === 'absent') {
    if (isRequired(mode) && !fallback) return { action: 'reject', code: 'request_signature_required' };
    if (isWarn(mode) && fallback) {
      return { action: 'accept_with_warning', source: 'fallback', code: 'request_signature_required' };
    }
    return { action: 'accept', source: fallback ? 'fallback' : 'none' };
  }
  if (outcome.code === 'request_signature_header_malformed' || !isWarn(mode)) {
    return { action: 'reject', code: outcome.code };
  }
  return fallback
    ? { action: 'accept_with_warning', source: 'fallback', code: outcome.code }
    : { action: 'reject_unauthenticated', code: outcome.code };
}
