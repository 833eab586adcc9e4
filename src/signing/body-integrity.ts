import { isJsonObject } from '../core/json-object.js';
import { decideAdmission, type Admission, type SigningMode, type SignatureOutcome } from './signature-admission.js';
import { checkRequestComponents, requestSignatureCode, type ContentDigestPolicy } from './verify-request-signature.js';

/**
 * The verifier facts one body-integrity case starts from (`body-integrity-policy.json`, AdCP 3.2
 * "Content-digest and proxy compatibility"): what the verifier established from the HTTP request
 * before dispatch, before trusting anything inside the body.
 */
export interface BodyIntegrityFacts {
  /** The endpoint's configured signing profile: `3.2`, or a legacy `3.1` compatibility endpoint. */
  endpointProfile: '3.1' | '3.2';
  /** The legacy endpoint's advertised `covers_content_digest` (ignored on a 3.2 endpoint). */
  legacyDigestPolicy?: 'required' | 'either' | 'forbidden';
  mode: SigningMode;
  hasBody: boolean;
  signaturePresent: boolean;
  /** A partial or unparsable `Signature` / `Signature-Input` pair. */
  malformedHeaderPair?: boolean;
  coversContentDigest?: boolean;
  digestMatchesBody?: boolean;
  cryptographicSignatureValid?: boolean;
  /** The caller presented another credential the verifier accepts (bearer, API key, mTLS). */
  fallbackAuthValid: boolean;
}

/** The policy a trusted endpoint configuration selects; nothing inside the body can change it. */
export function endpointDigestPolicy(
  facts: Pick<BodyIntegrityFacts, 'endpointProfile' | 'legacyDigestPolicy'>,
): ContentDigestPolicy {
  if (facts.endpointProfile === '3.2') return 'required';
  const legacy = facts.legacyDigestPolicy ?? 'either';
  return legacy === 'either' ? 'optional' : legacy;
}

/**
 * What the checklist concludes from the facts, in the checklist's order: step 6 (covered
 * components, through the verifier's own `checkRequestComponents`), step 10 (the signature),
 * step 11 (the recomputed digest).
 */
export function outcomeFromFacts(facts: BodyIntegrityFacts): SignatureOutcome {
  if (!facts.signaturePresent) return { kind: 'absent' };
  if (facts.malformedHeaderPair === true) return { kind: 'failed', code: 'request_signature_header_malformed' };
  const covered = ['@method', '@target-uri', '@authority', 'content-type'];
  if (facts.coversContentDigest === true) covered.push('content-digest');
  const failure = checkRequestComponents(covered, facts.hasBody, endpointDigestPolicy(facts));
  if (failure !== undefined) return { kind: 'failed', code: requestSignatureCode(failure) };
  if (facts.cryptographicSignatureValid === false) return { kind: 'failed', code: 'request_signature_invalid' };
  if (facts.coversContentDigest === true && facts.digestMatchesBody === false) {
    return { kind: 'failed', code: 'request_signature_digest_mismatch' };
  }
  return { kind: 'verified', keyid: 'signer' };
}

/** Evaluates one case with the same `decideAdmission` the server's verifier uses. */
export function evaluateBodyIntegrity(facts: BodyIntegrityFacts): Admission {
  return decideAdmission(facts.mode, outcomeFromFacts(facts), facts.fallbackAuthValid);
}

const MODES: readonly SigningMode[] = [
  'required_for',
  'warn_for',
  'supported_for',
  'protocol_methods_required_for',
  'protocol_methods_warn_for',
  'protocol_methods_supported_for',
];

/** Reads one case of the official file into facts; a string naming the problem when it is not one. */
export function parseBodyIntegrityCase(doc: unknown): BodyIntegrityFacts | string {
  if (!isJsonObject(doc)) return 'not an object';
  const mode = doc.mode;
  if (typeof mode !== 'string' || !(MODES as readonly string[]).includes(mode))
    return `unknown mode ${JSON.stringify(mode)}`;
  const profile = doc.endpoint_profile;
  if (profile !== '3.1' && profile !== '3.2') return `unknown endpoint_profile ${JSON.stringify(profile)}`;
  const legacy = doc.legacy_digest_policy;
  if (legacy !== undefined && legacy !== 'required' && legacy !== 'either' && legacy !== 'forbidden') {
    return `unknown legacy_digest_policy ${JSON.stringify(legacy)}`;
  }
  const flag = (name: string): boolean | undefined => (typeof doc[name] === 'boolean' ? doc[name] : undefined);
  const state = doc.signature_header_state;
  if (state !== undefined && state !== 'malformed_pair' && state !== 'well_formed') {
    return `unknown signature_header_state ${JSON.stringify(state)}`;
  }
  const facts: BodyIntegrityFacts = {
    endpointProfile: profile,
    mode: mode as SigningMode,
    hasBody: flag('has_body') === true,
    signaturePresent: flag('signature_present') === true,
    fallbackAuthValid: flag('fallback_auth_valid') === true,
  };
  if (legacy !== undefined) facts.legacyDigestPolicy = legacy;
  if (state === 'malformed_pair') facts.malformedHeaderPair = true;
  for (const [wire, key] of [
    ['covers_content_digest', 'coversContentDigest'],
    ['digest_matches_body', 'digestMatchesBody'],
    ['cryptographic_signature_valid', 'cryptographicSignatureValid'],
  ] as const) {
    const value = flag(wire);
    if (value !== undefined) facts[key] = value;
  }
  return facts;
}

/** The case's `expected` block in the library's terms, for comparison with `evaluateBodyIntegrity`. */
export function describeAdmission(admission: Admission): {
  action: Admission['action'];
  error_code?: string;
  authentication_source?: string;
  verified_signer_identity: boolean;
} {
  switch (admission.action) {
    case 'accept':
      return admission.source === 'none'
        ? { action: 'accept', verified_signer_identity: false }
        : {
            action: 'accept',
            authentication_source: admission.source,
            verified_signer_identity: admission.source === 'signature',
          };
    case 'accept_with_warning':
      return { action: 'accept_with_warning', authentication_source: 'fallback', verified_signer_identity: false };
    case 'reject':
      return { action: 'reject', error_code: admission.code, verified_signer_identity: false };
    case 'reject_unauthenticated':
      return { action: 'reject_unauthenticated', verified_signer_identity: false };
  }
}
