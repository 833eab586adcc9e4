import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { extractAdcpResponseFromMcp, taskResultFromMcp } from '../../src/index.js';
import {
  assertPrototypeClean,
  assertTaskResultBuilder,
  isPlainResult,
  jsonArb,
  mutationsOf,
  toJsonNative,
  vectorResponses,
} from './arbitraries.js';

const RUNS = 10_000;
const MAX = 4 * 1024 * 1024;

/** The spec's reference algorithm (mcp-response-extraction), with the limit counted in UTF-8 bytes. */
function reference(response: unknown): unknown {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) return null;
  const r = response as Record<string, unknown>;
  if (r['isError']) return null;
  const sc = r['structuredContent'];
  if (sc != null && typeof sc === 'object' && !Array.isArray(sc)) {
    const keys = Object.keys(sc);
    return keys.length === 1 && keys[0] === 'adcp_error' ? null : sc;
  }
  if (!Array.isArray(r['content'])) return null;
  for (const item of r['content'] as unknown[]) {
    if (typeof item !== 'object' || item === null) continue;
    const { type, text } = item as Record<string, unknown>;
    if (type !== 'text' || typeof text !== 'string' || !text) continue;
    if (new TextEncoder().encode(text).length > MAX) continue;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const keys = Object.keys(parsed);
        if (keys.length === 1 && keys[0] === 'adcp_error') continue;
        return parsed;
      }
    } catch {
      /* not JSON */
    }
  }
  return null;
}

const textItem = fc.oneof(
  jsonArb.map((v) => ({ type: 'text', text: JSON.stringify(v) ?? '' })),
  fc.string({ maxLength: 20 }).map((text) => ({ type: 'text', text })),
  jsonArb,
);
const generated = fc
  .record(
    {
      isError: fc.constantFrom<unknown>(true, false, 1, 0, 'true', '', null),
      structuredContent: fc.oneof(jsonArb, fc.constant({ adcp_error: { code: 'RATE_LIMITED' } })),
      content: fc.oneof(fc.array(textItem, { maxLength: 4 }), jsonArb),
    },
    { requiredKeys: [] },
  )
  .map(toJsonNative);
const seeds = vectorResponses('mcp-response-extraction.json');
const envelopes = fc.oneof(generated, fc.constantFrom(...seeds).chain(mutationsOf), jsonArb.map(toJsonNative));

describe('extractAdcpResponseFromMcp (property)', () => {
  it('never throws, returns a plain object or null, leaves its input and Object.prototype untouched, and agrees with the spec algorithm', () => {
    fc.assert(
      fc.property(envelopes, (input) => {
        const before = structuredClone(input);
        const out = extractAdcpResponseFromMcp(input);
        assert.ok(out === null || isPlainResult(out));
        assert.deepStrictEqual(input, before);
        assert.deepStrictEqual(out, reference(input));
        assertPrototypeClean(assert.equal);
      }),
      { numRuns: RUNS },
    );
  });

  it('taskResultFromMcp returns a known status or throws only AdcpWireError, without touching its input', () => {
    assertTaskResultBuilder(taskResultFromMcp, envelopes, 3_000);
  });
});
