import { isJsonObject } from '../../core/json-object.js';
import { parseJsonStrict } from '../../core/json.js';
import { expectEqual, guard, show, vectorId, vectorsWith, type JsonRecord } from './check.js';
import { requireWebhooks, type WebhooksModule } from './load-webhooks.js';
import type { FormatHandler, VectorResult } from './types.js';

type Hmac = Required<Pick<WebhooksModule, 'signWebhookHmac' | 'verifyWebhookHmac' | 'validateWebhookSecret'>>;

/**
 * Legacy HMAC-SHA256 webhook vectors: a shared `secret` and `vectors[]` of `raw_body`, `timestamp`,
 * `expected_signature`; optionally `rejection_vectors[]` (`signature` that must not verify, or an
 * `expected_verifier_action`), `secret_rejection_vectors[]` (secrets refused at configuration) and
 * `signer_side` (`signer_input_body` with `expected_signer_action`).
 */
export const webhookHmacHandler: FormatHandler = {
  format: 'webhook HMAC-SHA256 (legacy)',
  matches: (doc) =>
    isJsonObject(doc) &&
    typeof doc['secret'] === 'string' &&
    vectorsWith(doc, 'vectors', ['raw_body', 'timestamp', 'expected_signature']) !== undefined,
  async run(doc) {
    const hmac: Hmac = await requireWebhooks('signWebhookHmac', 'verifyWebhookHmac', 'validateWebhookSecret');
    const d = doc as JsonRecord;
    const secret = d['secret'] as string;
    const results: VectorResult[] = [];
    for (const [i, v] of (vectorsWith(d, 'vectors', ['raw_body', 'timestamp', 'expected_signature']) ?? []).entries()) {
      const id = vectorId(v, i);
      results.push(guard(id, () => positive(hmac, secret, id, v)));
    }
    for (const [i, v] of (vectorsWith(d, 'rejection_vectors', ['raw_body']) ?? []).entries()) {
      const id = vectorId(v, i, 'rejection/');
      results.push(guard(id, () => rejection(hmac, secret, id, v)));
    }
    for (const [i, v] of (vectorsWith(d, 'secret_rejection_vectors', ['secret']) ?? []).entries()) {
      const id = vectorId(v, i, 'secret-rejection/');
      results.push(
        guard(id, () => expectEqual(id, 'secret accepted', hmac.validateWebhookSecret(v['secret']).ok, false)),
      );
    }
    const signer = d['signer_side'];
    for (const key of ['rejection_vectors', 'positive_vectors']) {
      for (const [i, v] of (
        vectorsWith(signer, key, ['signer_input_body', 'expected_signer_action']) ?? []
      ).entries()) {
        const id = vectorId(v, i, 'signer/');
        results.push(guard(id, () => signerSide(hmac, secret, id, v)));
      }
    }
    return results;
  },
};

function positive(hmac: Hmac, secret: string, id: string, v: JsonRecord): VectorResult {
  const rawBody = String(v['raw_body']);
  const timestamp = v['timestamp'] as number;
  const signed = hmac.signWebhookHmac({ secret, rawBody, timestamp });
  if (signed.signature !== v['expected_signature'])
    return expectEqual(id, 'signature', signed.signature, v['expected_signature']);
  const verified = hmac.verifyWebhookHmac({
    secret,
    rawBody,
    timestamp,
    signature: v['expected_signature'],
    now: timestamp,
  });
  return expectEqual(id, 'verification', verified.ok ? 'ok' : verified.reason, 'ok');
}

function rejection(hmac: Hmac, secret: string, id: string, v: JsonRecord): VectorResult {
  const rawBody = String(v['raw_body']);
  const timestamp = v['timestamp'] as number;
  const now = typeof v['current_time'] === 'number' ? v['current_time'] : timestamp;
  const signature = (v['signature'] ?? null) as string | null;
  const verified = hmac.verifyWebhookHmac({ secret, rawBody, timestamp, signature, now });
  if (v['expected_verifier_action'] === 'reject-malformed') {
    // The HMAC is valid; the body must still be refused for its duplicate keys.
    const parsed = parseJsonStrict(rawBody);
    const outcome =
      verified.ok && !parsed.ok ? `reject-${parsed.reason}` : verified.ok ? 'accept' : `reject-${verified.reason}`;
    return expectEqual(id, 'verifier outcome', outcome, 'reject-duplicate_key');
  }
  return verified.ok
    ? { id, ok: false, reason: `expected rejection (${show(v['reason'])}), got acceptance` }
    : { id, ok: true };
}

function signerSide(hmac: Hmac, secret: string, id: string, v: JsonRecord): VectorResult {
  const rawBody = String(v['signer_input_body']);
  let outcome: string;
  try {
    const signed = hmac.signWebhookHmac({ secret, rawBody, timestamp: 1700000000 });
    outcome = /^sha256=[0-9a-f]{64}$/.test(signed.signature) ? 'sign-and-emit' : `bad signature ${signed.signature}`;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    outcome = code === 'duplicate_key_input' ? 'reject-input-before-sign' : `threw ${String(code ?? error)}`;
  }
  return expectEqual(id, 'signer action', outcome, v['expected_signer_action']);
}
