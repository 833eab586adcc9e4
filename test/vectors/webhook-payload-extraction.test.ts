import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractWebhookPayload } from '../../src/core/webhook-payload.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.resolve(repoRoot, '../shared/vectors/webhook-payload-extraction.json');
const { vectors } = JSON.parse(readFileSync(file, 'utf8')) as {
  vectors: { id: string; format: 'mcp' | 'a2a'; payload: unknown; expected_format: string; expected_data: unknown }[];
};

describe('webhook-payload-extraction.json', () => {
  for (const vector of vectors) {
    it(vector.id, () => {
      const before = structuredClone(vector.payload);
      const detected = extractWebhookPayload(vector.payload);
      assert.equal(detected.format, vector.expected_format);
      assert.deepEqual(detected.data, vector.expected_data);
      const known = extractWebhookPayload(vector.payload, { knownFormat: vector.format });
      assert.deepEqual(known.data, vector.expected_data, 'same data with the known format');
      assert.deepEqual(vector.payload, before, 'input not modified');
    });
  }
});
