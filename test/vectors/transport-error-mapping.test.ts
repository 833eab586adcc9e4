import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  extractAdcpError,
  extractAdcpErrorFromA2A,
  extractAdcpErrorFromJsonRpc,
  extractAdcpErrorFromMcp,
} from '../../src/core/extract-error.js';
import { recoveryAction } from '../../src/core/recovery.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.resolve(repoRoot, '../shared/vectors/transport-error-mapping.json');
const { vectors } = JSON.parse(readFileSync(file, 'utf8')) as {
  vectors: {
    id: string;
    transport: string;
    response: Record<string, unknown>;
    expected_error: unknown;
    expected_action: string;
  }[];
};

function extractByTransport(transport: string, response: Record<string, unknown>): unknown {
  if (transport === 'a2a') return extractAdcpErrorFromA2A(response);
  if ('error' in response) return extractAdcpErrorFromJsonRpc(response);
  return extractAdcpErrorFromMcp(response);
}

describe('transport-error-mapping.json', () => {
  for (const vector of vectors) {
    it(vector.id, () => {
      const before = structuredClone(vector.response);
      const error = extractByTransport(vector.transport, vector.response);
      assert.deepEqual(error, vector.expected_error);
      assert.deepEqual(extractAdcpError(vector.response), vector.expected_error, 'transport-agnostic detection order');
      assert.equal(recoveryAction(error as never), vector.expected_action);
      assert.deepEqual(vector.response, before, 'input not modified');
    });
  }
});
