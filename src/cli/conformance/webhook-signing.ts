import { isJsonObject } from '../../core/json-object.js';
import path from 'node:path';
import { show, type JsonRecord } from './check.js';
import { requireWebhooks } from './load-webhooks.js';
import type { FormatHandler } from './types.js';

function isSigningVector(doc: unknown): doc is JsonRecord {
  if (!isJsonObject(doc)) return false;
  const request = doc['request'];
  return (
    isJsonObject(request) &&
    typeof request['method'] === 'string' &&
    typeof request['url'] === 'string' &&
    isJsonObject(request['headers']) &&
    isJsonObject(doc['expected_outcome']) &&
    Array.isArray(doc['jwks_ref'])
  );
}

/**
 * RFC 9421 webhook-signature vectors (one per file: `request`, `jwks_ref`, `expected_outcome`,
 * optional `test_harness_state`), verified by `runWebhookSigningVector` from `src/webhooks/`
 * with the JWK set found nearest to the file.
 */
export const webhookSigningHandler: FormatHandler = {
  format: 'webhook signature (RFC 9421)',
  matches: isSigningVector,
  async run(doc, context) {
    const { runWebhookSigningVector } = await requireWebhooks('runWebhookSigningVector');
    const id = path.basename(context.file, '.json');
    const keys = context.jwksNear(context.file);
    try {
      const outcome = await runWebhookSigningVector(doc, keys);
      return [
        outcome.pass
          ? { id, ok: true }
          : { id, ok: false, reason: `expected ${show(outcome.expected)}, got ${show(outcome.actual)}` },
      ];
    } catch (error) {
      return [{ id, ok: false, reason: `threw ${show(error instanceof Error ? error.message : error)}` }];
    }
  },
};
