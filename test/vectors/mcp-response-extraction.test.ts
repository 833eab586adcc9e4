import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractAdcpResponseFromMcp } from '../../src/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.join(path.resolve(repoRoot, '../shared/vectors'), 'mcp-response-extraction.json');
const { vectors } = JSON.parse(readFileSync(file, 'utf8')) as { vectors: Array<Record<string, unknown>> };

describe('mcp-response-extraction.json', () => {
  it('has vectors to run', () => assert.ok(vectors.length > 0));
  for (const vector of vectors) {
    it(String(vector['id']), () => {
      if (typeof vector['expected_error_type'] === 'string') {
        assert.throws(() => extractAdcpResponseFromMcp(vector['response']), { code: vector['expected_error_type'] });
        return;
      }
      assert.deepStrictEqual(extractAdcpResponseFromMcp(vector['response']), vector['expected_data'] ?? null);
    });
  }
});
