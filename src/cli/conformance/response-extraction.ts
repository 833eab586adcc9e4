import { isJsonObject } from '../../core/json-object.js';
import { extractAdcpResponseFromA2A } from '../../core/extract-a2a-response.js';
import { extractAdcpResponseFromMcp } from '../../core/extract-mcp-response.js';
import { expectEqual, guard, show, vectorId, vectorsWith, type JsonRecord } from './check.js';
import type { FormatHandler, VectorResult } from './types.js';

/**
 * mcp-/a2a-response-extraction.md "Test Vectors": `response` and `expected_data`, optionally
 * `expected_error_type` (the extraction must throw an error with that `code`). A vector is A2A when
 * it says so (`transport`), carries the A2A `status` field, or its response has A2A shape.
 */
export const responseExtractionHandler: FormatHandler = {
  format: 'response extraction',
  matches: (doc) => {
    const vectors = vectorsWith(doc, 'vectors', ['response', 'expected_data']);
    return vectors !== undefined && vectors.every((v) => !('expected_action' in v) && !('payload' in v));
  },
  async run(doc) {
    const vectors = vectorsWith(doc, 'vectors', ['response', 'expected_data']) ?? [];
    return vectors.map((v, i) => {
      const id = vectorId(v, i);
      return guard(id, () => runOne(id, v));
    });
  },
};

function isA2AVector(v: JsonRecord): boolean {
  if (v['transport'] === 'a2a') return true;
  if (v['transport'] === 'mcp') return false;
  if ('status' in v) return true;
  const r = v['response'];
  return isJsonObject(r) && !('content' in r) && !('structuredContent' in r) && !('isError' in r);
}

function runOne(id: string, v: JsonRecord): VectorResult {
  const a2a = isA2AVector(v);
  const extract = (): unknown =>
    a2a ? extractAdcpResponseFromA2A(v['response']) : extractAdcpResponseFromMcp(v['response']);
  const expectedError = v['expected_error_type'];
  if (typeof expectedError === 'string') {
    try {
      const data = extract();
      return { id, ok: false, reason: `expected a '${show(expectedError)}' error, got data ${show(data)}` };
    } catch (error) {
      const code = isJsonObject(error) || error instanceof Error ? (error as { code?: unknown }).code : undefined;
      return expectEqual(id, `${a2a ? 'A2A' : 'MCP'} error code`, code, expectedError);
    }
  }
  return expectEqual(id, `${a2a ? 'A2A' : 'MCP'} data`, extract(), v['expected_data']);
}
