import { extractWebhookPayload } from '../../core/webhook-payload.js';
import { all, expectEqual, guard, vectorId, vectorsWith } from './check.js';
import type { FormatHandler } from './types.js';

/** webhooks.md "Payload extraction" vectors: `payload`, `expected_data`, optionally `expected_format`. */
export const webhookPayloadsHandler: FormatHandler = {
  format: 'webhook payload extraction',
  matches: (doc) => vectorsWith(doc, 'vectors', ['payload', 'expected_data']) !== undefined,
  async run(doc) {
    const vectors = vectorsWith(doc, 'vectors', ['payload', 'expected_data']) ?? [];
    return vectors.map((v, i) => {
      const id = vectorId(v, i);
      return guard(id, () => {
        const out = extractWebhookPayload(v['payload']);
        const checks = [expectEqual(id, 'data', out.data, v['expected_data'])];
        if ('expected_format' in v) checks.unshift(expectEqual(id, 'format', out.format, v['expected_format']));
        return all(id, checks);
      });
    });
  },
};
