import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AdcpWireError, extractAdcpResponseFromA2A, taskResultFromA2A } from '../../src/index.js';
import {
  assertPrototypeClean,
  assertTaskResultBuilder,
  isPlainResult,
  jsonArb,
  mutationsOf,
  STATES,
  toJsonNative,
  vectorResponses,
} from './arbitraries.js';

const RUNS = 10_000;
const WRAPPER = Symbol('wrapper');
const ENVELOPE_KEYS = ['task', 'message', 'statusUpdate', 'artifactUpdate'];
const FINAL = ['completed', 'failed', 'canceled', 'rejected'];
const INTERIM = ['working', 'submitted', 'input-required', 'auth-required'];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The spec's reference algorithm (a2a-response-extraction) with its MUSTs: nested envelopes, oneof parts. */
function reference(input: unknown): unknown {
  let task = input;
  if (isObj(input)) {
    const keys = Object.keys(input);
    if (keys.length === 1 && ENVELOPE_KEYS.includes(keys[0]!) && isObj(input[keys[0]!])) {
      task = input[keys[0]!];
      if (Object.keys(task as object).some((k) => ENVELOPE_KEYS.includes(k))) return null;
    }
  }
  if (!isObj(task) || !isObj(task['status'])) return null;
  const raw = task['status']['state'];
  if (typeof raw !== 'string') return null;
  const state = raw
    .replace(/^TASK_STATE_/, '')
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .replace(/_/g, '-');
  const isDataPart = (p: unknown) =>
    isObj(p) && isObj(p['data']) && ['text', 'raw', 'url', 'file'].every((f) => p[f] === undefined || p[f] === null);
  const fromMessage = () => {
    const message = (task as Record<string, Record<string, unknown>>)['status']!['message'];
    const parts = isObj(message) ? message['parts'] : undefined;
    if (!Array.isArray(parts)) return null;
    const found = parts.find(isDataPart) as Record<string, unknown> | undefined;
    return found === undefined ? null : found['data'];
  };
  if (FINAL.includes(state)) {
    const artifacts = task['artifacts'];
    const first: unknown = Array.isArray(artifacts) ? artifacts[0] : undefined;
    const parts = isObj(first) ? first['parts'] : undefined;
    if (Array.isArray(parts)) {
      const dataParts = parts.filter(isDataPart) as Array<Record<string, Record<string, unknown>>>;
      const last = dataParts[dataParts.length - 1];
      if (last !== undefined) {
        const keys = Object.keys(last['data']!);
        const inner = last['data']!['response'];
        if (keys.length === 1 && keys[0] === 'response' && typeof inner === 'object' && inner !== null) return WRAPPER;
        return last['data'];
      }
    }
    return fromMessage();
  }
  return INTERIM.includes(state) ? fromMessage() : null;
}

const part = fc.oneof(
  jsonArb.map((data) => ({ kind: 'data', data })),
  jsonArb.map((data) => ({ data })),
  fc.constant({ data: { response: { products: [] } } }),
  fc.constant({ text: 'hello' }),
  jsonArb.map((data) => ({ text: 'both', data })),
  jsonArb.map((data) => ({ url: 'https://x.example/f', data })),
  jsonArb,
);
const parts = fc.array(part, { maxLength: 4 });
const task = fc.record(
  {
    id: fc.constant('t1'),
    status: fc.record(
      {
        state: fc.oneof(fc.constantFrom<unknown>(...STATES), jsonArb),
        message: fc.oneof(fc.record({ role: fc.constant('agent'), parts }), jsonArb),
      },
      { requiredKeys: [] },
    ),
    artifacts: fc.oneof(fc.array(fc.record({ artifactId: fc.constant('r'), parts }), { maxLength: 2 }), jsonArb),
  },
  { requiredKeys: [] },
);
const generated = fc
  .tuple(task, fc.constantFrom('bare', 'task', 'statusUpdate', 'message', 'artifactUpdate', 'nested', 'smuggled'))
  .map(([t, wrap]) => {
    if (wrap === 'bare') return t;
    if (wrap === 'nested') return { task: { statusUpdate: t } };
    if (wrap === 'smuggled') return { task: { ...t, message: {} } };
    return { [wrap]: t };
  })
  .map(toJsonNative);
const seeds = vectorResponses('a2a-response-extraction.json');
const inputs = fc.oneof(generated, fc.constantFrom(...seeds).chain(mutationsOf), jsonArb.map(toJsonNative));

describe('extractAdcpResponseFromA2A (property)', () => {
  it('throws only wrapper_detected, returns a plain object or null, leaves its input and Object.prototype untouched, and agrees with the spec algorithm', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const before = structuredClone(input);
        let out: unknown;
        try {
          out = extractAdcpResponseFromA2A(input);
        } catch (error) {
          assert.ok(error instanceof AdcpWireError && error.code === 'wrapper_detected', String(error));
          out = WRAPPER;
        }
        assert.ok(out === null || out === WRAPPER || isPlainResult(out));
        assert.deepStrictEqual(input, before);
        assert.deepStrictEqual(out, reference(input));
        assertPrototypeClean(assert.equal);
      }),
      { numRuns: RUNS },
    );
  });

  it('taskResultFromA2A returns a known status or throws only AdcpWireError, without touching its input', () => {
    assertTaskResultBuilder(taskResultFromA2A, inputs, 3_000);
  });
});
