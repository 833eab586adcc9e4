import { isJsonObject } from '../../core/json-object.js';
import { validateWebhookEnvelope } from '../../core/webhook-envelope.js';
import { expectEqual, guard, show, vectorId, type JsonRecord } from './check.js';
import type { FormatHandler, VectorResult } from './types.js';

function lists(doc: unknown): { positive: JsonRecord[]; negative: JsonRecord[] } | undefined {
  if (!isJsonObject(doc) || (!Array.isArray(doc['positive']) && !Array.isArray(doc['negative']))) return undefined;
  const positive = (doc['positive'] ?? []) as unknown[];
  const negative = (doc['negative'] ?? []) as unknown[];
  if (!Array.isArray(positive) || !Array.isArray(negative)) return undefined;
  if (!positive.every((v) => isJsonObject(v) && 'payload' in v)) return undefined;
  if (!negative.every((v) => isJsonObject(v) && 'payload' in v && 'expected_error' in v)) return undefined;
  return { positive: positive as JsonRecord[], negative: negative as JsonRecord[] };
}

/** Webhook receiver envelope vectors: `positive[]` bodies to accept, `negative[]` with `expected_error`. */
export const receiverEnvelopesHandler: FormatHandler = {
  format: 'webhook receiver envelope',
  matches: (doc) => lists(doc) !== undefined,
  async run(doc) {
    const { positive, negative } = lists(doc) ?? { positive: [], negative: [] };
    const results: VectorResult[] = positive.map((v, i) => {
      const id = vectorId(v, i, 'positive/');
      return guard(id, () => {
        const check = validateWebhookEnvelope(v['payload']);
        if (!check.ok) return { id, ok: false, reason: `expected acceptance, got '${show(check.error)}'` };
        const sameAs = v['same_event_as'];
        if (typeof sameAs !== 'string') return { id, ok: true };
        const first = positive.find((p) => p['id'] === sameAs);
        const key = (p: JsonRecord | undefined): unknown =>
          isJsonObject(p?.['payload']) ? p['payload']['idempotency_key'] : undefined;
        if (first === undefined)
          return { id, ok: false, reason: `same_event_as '${show(sameAs)}' names no positive vector` };
        return expectEqual(id, 'idempotency_key of the same event', key(v), key(first));
      });
    });
    for (const [i, v] of negative.entries()) {
      const id = vectorId(v, i, 'negative/');
      results.push(
        guard(id, () => {
          const check = validateWebhookEnvelope(v['payload']);
          return expectEqual(id, 'error', check.ok ? 'accepted' : check.error, v['expected_error']);
        }),
      );
    }
    return results;
  },
};
