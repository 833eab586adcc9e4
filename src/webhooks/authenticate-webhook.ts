import { readHeader, type HeaderSource } from '../signing/signature-base.js';
import { verifyWebhookHmac } from './hmac.js';
import { verifyWebhookSignature } from './verify-webhook-signature.js';
import type { ReplayStore } from '../signing/replay-store.js';
import type { WebhookSignatureConfig, WebhookEvent } from './handler-types.js';

export type Authentication =
  | { ok: true; sender: WebhookEvent['sender'] }
  | { ok: false; status: 401 | 429 | 503; reason: string; challenge?: string; retryAfter?: string };

/**
 * Failures on the receiver's side, not the sender's: answered with a retryable status so the
 * sender's retry can succeed later (a 401 with a webhook_* code tells it to give up on the event).
 */
const RETRYABLE: Readonly<Record<string, { status: 429 | 503; retryAfter: string }>> = {
  webhook_signature_jwks_unavailable: { status: 503, retryAfter: '30' },
  webhook_signature_revocation_stale: { status: 503, retryAfter: '60' },
  webhook_signature_rate_abuse: { status: 429, retryAfter: '60' },
};

/**
 * Runs the configured signature scheme over the raw bytes. A delivery signed under the other
 * scheme is refused with `webhook_mode_mismatch`, never verified the other way (no downgrade).
 */
export async function authenticateWebhook(
  config: WebhookSignatureConfig,
  request: { method: string; url: string; headers: HeaderSource; body: Buffer },
  context: { agent: string | undefined; nowMs: number; replay: ReplayStore | undefined },
): Promise<Authentication> {
  if (config === 'none-i-know-this-is-unsafe') {
    return { ok: true, sender: { scheme: 'none', scope: context.agent ?? 'unsigned' } };
  }
  const hasHmac = readHeader(request.headers, 'x-adcp-signature') !== undefined;
  const hasHttpSignature =
    readHeader(request.headers, 'signature-input') !== undefined ||
    readHeader(request.headers, 'signature') !== undefined;
  if (config.scheme === 'hmac') {
    if (hasHttpSignature && !hasHmac) return mismatch();
    const result = verifyWebhookHmac({
      secret: config.secret,
      rawBody: request.body,
      timestamp: readHeader(request.headers, 'x-adcp-timestamp'),
      signature: readHeader(request.headers, 'x-adcp-signature'),
      now: context.nowMs,
    });
    if (!result.ok) return { ok: false, status: 401, reason: `webhook_hmac_${result.reason}` };
    return { ok: true, sender: { scheme: 'hmac', scope: context.agent ?? 'hmac' } };
  }
  if (hasHmac && !hasHttpSignature) return mismatch();
  const result = await verifyWebhookSignature(request, {
    jwks: config.jwks,
    now: context.nowMs,
    ...(context.replay !== undefined ? { replay: context.replay } : {}),
    ...(config.revocation !== undefined ? { revocation: config.revocation } : {}),
    ...(config.admission !== undefined ? { admission: config.admission } : {}),
  });
  if (!result.ok) {
    const retry = RETRYABLE[result.reason];
    const challenge = `Signature error="${result.reason}"`;
    return retry === undefined
      ? { ok: false, status: 401, reason: result.reason, challenge }
      : { ok: false, status: retry.status, reason: result.reason, challenge, retryAfter: retry.retryAfter };
  }
  return {
    ok: true,
    sender: { scheme: 'rfc9421', scope: context.agent ?? `kid:${result.keyid}`, keyid: result.keyid },
  };
}

function mismatch(): Authentication {
  return {
    ok: false,
    status: 401,
    reason: 'webhook_mode_mismatch',
    challenge: 'Signature error="webhook_mode_mismatch"',
  };
}
