/** The webhook error taxonomy (security.md, "Webhook error taxonomy"): stable codes for 401 answers. */
export const WEBHOOK_SIGNATURE_ERRORS = [
  'webhook_signature_header_malformed',
  'webhook_signature_params_incomplete',
  'webhook_signature_tag_invalid',
  'webhook_signature_alg_not_allowed',
  'webhook_signature_window_invalid',
  'webhook_signature_components_incomplete',
  'webhook_signature_key_unknown',
  'webhook_signature_key_purpose_invalid',
  'webhook_signature_key_revoked',
  'webhook_signature_revocation_stale',
  'webhook_signature_invalid',
  'webhook_signature_digest_mismatch',
  'webhook_target_uri_malformed',
  'webhook_signature_replayed',
  'webhook_signature_rate_abuse',
  'webhook_mode_mismatch',
  // Not in the webhook table; named after request_signature_jwks_unavailable (retryable).
  'webhook_signature_jwks_unavailable',
] as const;
export type WebhookSignatureError = (typeof WEBHOOK_SIGNATURE_ERRORS)[number];

/** `webhook_body_malformed`: valid signature, duplicate object keys in the body (step 14). */
export const WEBHOOK_BODY_MALFORMED = 'webhook_body_malformed';

export const WEBHOOK_SIGNING_TAG = 'adcp/webhook-signing/v1';
/** RFC 9421 `alg` names allowed by both AdCP profiles, with the JWK shape each needs. */
export const SIGNATURE_ALGORITHMS: Readonly<Record<string, { kty: string; crv: string; jwkAlg: string }>> = {
  ed25519: { kty: 'OKP', crv: 'Ed25519', jwkAlg: 'EdDSA' },
  'ecdsa-p256-sha256': { kty: 'EC', crv: 'P-256', jwkAlg: 'ES256' },
};
export const WEBHOOK_ALGORITHMS = SIGNATURE_ALGORITHMS;
export const REQUIRED_COMPONENTS = ['@method', '@target-uri', '@authority', 'content-type', 'content-digest'] as const;
/** Key purposes accepted on the webhook path (`webhook-signing` is deprecated but still accepted). */
export const WEBHOOK_KEY_PURPOSES: readonly string[] = ['request-signing', 'webhook-signing'];
/** Longest validity (`expires - created`) and the clock skew tolerated, in seconds. */
export const MAX_VALIDITY_SECONDS = 300;
export const SKEW_SECONDS = 60;

/** The request-signing taxonomy (security.md, "Transport error taxonomy"): `WWW-Authenticate: Signature error="<code>"`. */
export const REQUEST_SIGNATURE_ERRORS = [
  'request_signature_required',
  'request_target_uri_malformed',
  'request_signature_header_malformed',
  'request_signature_params_incomplete',
  'request_signature_tag_invalid',
  'request_signature_alg_not_allowed',
  'request_signature_window_invalid',
  'request_signature_components_incomplete',
  'request_signature_components_unexpected',
  'request_signature_key_unknown',
  'request_signature_key_purpose_invalid',
  'request_signature_key_revoked',
  'request_signature_revocation_stale',
  'request_signature_invalid',
  'request_signature_digest_mismatch',
  'request_body_malformed',
  'request_signature_replayed',
  'request_signature_rate_abuse',
  'request_signature_jwks_unavailable',
  'request_signature_jwks_untrusted',
  // The brand_json_url discovery chain (security.md, "Rejection codes for this discovery chain").
  'request_signature_brand_json_url_missing',
  'request_signature_capabilities_unreachable',
  'request_signature_brand_json_unreachable',
  'request_signature_brand_json_malformed',
  'request_signature_brand_origin_mismatch',
  'request_signature_agent_not_in_brand_json',
  'request_signature_brand_json_ambiguous',
  'request_signature_key_origin_mismatch',
  'request_signature_key_origin_missing',
] as const;
export type RequestSignatureError = (typeof REQUEST_SIGNATURE_ERRORS)[number];

export const REQUEST_SIGNING_TAG = 'adcp/request-signing/v1';
/** Key purposes accepted on the request path: exactly `request-signing`. */
export const REQUEST_KEY_PURPOSES: readonly string[] = ['request-signing'];
