import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateWebhookEnvelope } from '../../src/core/webhook-envelope.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.resolve(repoRoot, '../shared/vectors/webhook-receiver-envelope.json');
interface Vector {
  id: string;
  payload: Record<string, unknown>;
  expected_error?: string;
  same_event_as?: string;
}
const { positive, negative } = JSON.parse(readFileSync(file, 'utf8')) as { positive: Vector[]; negative: Vector[] };

describe('webhook-receiver-envelope.json', () => {
  for (const vector of positive) {
    it(vector.id, () => {
      const check = validateWebhookEnvelope(vector.payload);
      assert.equal(check.ok, true, JSON.stringify(check));
      if (vector.same_event_as !== undefined) {
        const first = positive.find((v) => v.id === vector.same_event_as);
        assert.ok(first, `same_event_as ${vector.same_event_as} exists`);
        assert.equal(vector.payload['idempotency_key'], first.payload['idempotency_key']);
      }
    });
  }
  for (const vector of negative) {
    it(vector.id, () => {
      const check = validateWebhookEnvelope(vector.payload);
      assert.equal(check.ok, false);
      assert.equal(!check.ok && check.error, vector.expected_error);
    });
  }
});
