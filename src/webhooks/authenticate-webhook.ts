import { readHeader, type HeaderSource } from '../signing/signature-base.js';
import { validateWebhookSecret, verifyWebhookHmac, type HmacSecret } from './hmac.js';
import { verifyWebhookSignature } from './verify-webhook-signature.js';
import { toJwksSource, type JwksSource } from '../signing/jwks.js';
import { remoteJwks } from '../signing/remote-jwks.js';
import { MemoryReplayStore, type ReplayStore } from '../signing/replay-store.js';
import type { RevocationSource } from '../signing/revocation.js';
import type { AdmissionMonitor } from '../signing/admission-monitor.js';
import { UNSIGNED_WEBHOOKS, type WebhookSignatureConfig, type WebhookEvent } from './handler-types.js';

export type Authentication =
  | { ok: true; sender: WebhookEvent['sender'] }
  | { ok: false; status: 401 | 429 | 503; reason: string; challenge?: string; retryAfter?: string };

/** The signature configuration as the receiver runs it: checked, copied and resolved at creation. */
export type ResolvedSignature =
  | { scheme: 'none' }
  | { scheme: 'hmac'; secrets: readonly HmacSecret[] }
  | {
      scheme: 'rfc9421';
      jwks: JwksSource;
      replay: ReplayStore;
      revocation?: RevocationSource;
      admission?: AdmissionMonitor;
    };

/**
 * Checks and resolves `signature` once, for the handler's lifetime: HMAC secrets copied after the
 * strength check; the JWKS source built (a URL becomes one cached remote source); the replay cache
 * chosen. Throws a TypeError/RangeError for a missing, unknown or weak configuration.
 */
export function resolveSignature(config: WebhookSignatureConfig): ResolvedSignature {
  if (config === UNSIGNED_WEBHOOKS) {
    process.emitWarning(
      'adcp-wire: webhook signatures are NOT verified (signature: "none-i-know-this-is-unsafe"); anyone can forge events',
      { code: 'ADCP_UNSIGNED_WEBHOOKS' },
    );
    return { scheme: 'none' };
  }
  if (config === undefined || config === null || typeof config !== 'object') {
    throw new TypeError(
      `createWebhookHandler: \`signature\` is required: { scheme: 'rfc9421', jwks } or { scheme: 'hmac', secret }; unsigned webhooks need the explicit '${UNSIGNED_WEBHOOKS}'`,
    );
  }
  if (config.scheme === 'hmac') {
    const secrets = Array.isArray(config.secret) ? config.secret : [config.secret as HmacSecret];
    if (secrets.length === 0) throw new RangeError('createWebhookHandler: hmac secret list is empty');
    for (const secret of secrets) {
      const check = validateWebhookSecret(secret);
      if (!check.ok) throw new RangeError(`createWebhookHandler: weak webhook secret refused (${check.reason})`);
    }
    return {
      scheme: 'hmac',
      secrets: Object.freeze(secrets.map((secret) => (typeof secret === 'string' ? secret : Buffer.from(secret)))),
    };
  }
  if (config.scheme === 'rfc9421') {
    return {
      scheme: 'rfc9421',
      jwks: toJwksSource(config.jwks, remoteJwks),
      replay: config.replay ?? new MemoryReplayStore(),
      ...(config.revocation !== undefined ? { revocation: config.revocation } : {}),
      ...(config.admission !== undefined ? { admission: config.admission } : {}),
    };
  }
  throw new TypeError(
    `createWebhookHandler: unknown signature scheme ${String((config as { scheme?: unknown }).scheme)}`,
  );
}

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
  signature: ResolvedSignature,
  request: { method: string; url: string; headers: HeaderSource; body: Buffer },
  context: { agent: string | undefined; nowMs: number },
): Promise<Authentication> {
  if (signature.scheme === 'none') {
    return { ok: true, sender: { scheme: 'none', scope: context.agent ?? 'unsigned' } };
  }
  const hasHmac = readHeader(request.headers, 'x-adcp-signature') !== undefined;
  const hasHttpSignature =
    readHeader(request.headers, 'signature-input') !== undefined ||
    readHeader(request.headers, 'signature') !== undefined;
  if (signature.scheme === 'hmac') {
    if (hasHttpSignature && !hasHmac) return mismatch();
    const result = verifyWebhookHmac({
      secret: signature.secrets,
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
    jwks: signature.jwks,
    now: context.nowMs,
    replay: signature.replay,
    ...(signature.revocation !== undefined ? { revocation: signature.revocation } : {}),
    ...(signature.admission !== undefined ? { admission: signature.admission } : {}),
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
