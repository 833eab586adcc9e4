import type { HeaderSource } from '../signing/signature-base.js';
import type { Jwk, JwksInput } from '../signing/jwks.js';
import type { ReplayStore } from '../signing/replay-store.js';
import type { RevocationSource } from '../signing/revocation.js';
import type { AdmissionMonitor } from '../signing/admission-monitor.js';
import {
  REQUIRED_COMPONENTS,
  WEBHOOK_KEY_PURPOSES,
  WEBHOOK_SIGNING_TAG,
  type WebhookSignatureError,
} from '../signing/signature-codes.js';
import { verifySignedMessage, type SignatureProfile } from '../signing/verify-signed-message.js';

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

/** The AdCP webhook profile: legacy Base64URL binary values, all five components, the webhook tag. */
export const WEBHOOK_PROFILE: SignatureProfile = {
  tag: WEBHOOK_SIGNING_TAG,
  keyPurposes: WEBHOOK_KEY_PURPOSES,
  binary: 'base64url',
  checkComponents: (covered) =>
    REQUIRED_COMPONENTS.every((c) => covered.includes(c)) ? undefined : 'components_incomplete',
  jwkMismatch: 'invalid',
  strictFields: false,
};

/**
 * Verifies an AdCP RFC 9421 webhook signature (security.md, "Verifier checklist for webhooks",
 * steps 1-13). Returns `{ ok: true, keyid }` or `{ ok: false, reason }` with the taxonomy code;
 * never throws on hostile input. Body well-formedness (step 14) is the caller's next check.
 */
export async function verifyWebhookSignature(
  request: WebhookRequestParts,
  options: VerifyWebhookSignatureOptions,
): Promise<WebhookSignatureResult> {
  const result = await verifySignedMessage(request, WEBHOOK_PROFILE, options);
  if (result.ok) return result;
  const reason: WebhookSignatureError =
    result.failure === 'target_uri_malformed'
      ? 'webhook_target_uri_malformed'
      : (`webhook_signature_${result.failure}` as WebhookSignatureError);
  return result.detail === undefined ? { ok: false, reason } : { ok: false, reason, detail: result.detail };
}
