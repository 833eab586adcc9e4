import fc from 'fast-check';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcpWireError, TASK_STATUSES, type TaskResult } from '../../src/index.js';

// Shared generators for the extraction property tests: JSON-native values (built through
// JSON.parse, so `__proto__` is an own key exactly as it arrives from a seller).

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The `response` of every vector in a vector file, as mutation seeds. */
export function vectorResponses(file: string): unknown[] {
  const text = readFileSync(path.join(path.resolve(repoRoot, '../shared/vectors'), file), 'utf8');
  return (JSON.parse(text) as { vectors: Array<{ response: unknown }> }).vectors.map((v) => v.response);
}

export const KEYS = [
  'isError',
  'structuredContent',
  'content',
  'type',
  'text',
  'adcp_error',
  'code',
  'status',
  'state',
  'message',
  'parts',
  'data',
  'kind',
  'raw',
  'url',
  'file',
  'artifacts',
  'artifact',
  'task',
  'statusUpdate',
  'artifactUpdate',
  'response',
  'products',
  'task_id',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];
export const STATES = [
  'completed',
  'failed',
  'canceled',
  'rejected',
  'working',
  'submitted',
  'input-required',
  'auth-required',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_PAUSED',
  'Completed',
  ' completed',
  'complet\u0130d',
  'wor\u212Aing',
  'input_required',
  '',
];
const TEXTS = [
  '{"status":"completed","products":[]}',
  '{"adcp_error":{"code":"RATE_LIMITED"}}',
  '[{"a":1}]',
  'null',
  '42',
  '"str"',
  '{"__proto__":{"polluted":true},"a":1}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '  {"a":1}  ',
  '{"a":',
  'plain text answer',
  '',
  '\u0000{',
  '{"response":{"x":1}}',
];

const leaf = fc.oneof(
  fc.constantFrom<unknown>(...STATES, ...TEXTS),
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Random JSON-ish values with the keys the extractors read. */
export const { value: jsonArb } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 5 })), tie('value')), { maxLength: 5 })
      .map((entries) => Object.fromEntries(entries)),
  ),
}));

/** Replaces, deletes or wraps one node of `seed` (a deep copy; the seed is never touched). */
export function mutationsOf(seed: unknown): fc.Arbitrary<unknown> {
  const op = fc.record({
    at: fc.nat(),
    kind: fc.constantFrom('replace', 'delete', 'wrap', 'duplicate-part', 'proto'),
    value: jsonArb,
    key: fc.constantFrom('task', 'statusUpdate', 'message', 'artifactUpdate', 'response'),
  });
  return fc.array(op, { minLength: 1, maxLength: 4 }).map((ops) => {
    let root: unknown = structuredClone(seed);
    for (const o of ops) root = mutate(root, o);
    return toJsonNative(root);
  });
}

type Op = { at: number; kind: string; value: unknown; key: string };

function mutate(root: unknown, op: Op): unknown {
  const nodes: Array<{ parent: Record<string, unknown> | unknown[] | null; key: string | number; node: unknown }> = [];
  const walk = (parent: Record<string, unknown> | unknown[] | null, key: string | number, node: unknown) => {
    nodes.push({ parent, key, node });
    if (Array.isArray(node)) node.forEach((child, i) => walk(node, i, child));
    else if (typeof node === 'object' && node !== null) {
      for (const k of Object.keys(node)) walk(node as Record<string, unknown>, k, (node as Record<string, unknown>)[k]);
    }
  };
  walk(null, '', root);
  const target = nodes[op.at % nodes.length]!;
  let replacement: unknown;
  switch (op.kind) {
    case 'replace':
      replacement = op.value;
      break;
    case 'wrap':
      replacement = { [op.key]: target.node };
      break;
    case 'proto':
      replacement = JSON.parse(`{"__proto__":{"polluted":true},"inner":${JSON.stringify(target.node) ?? 'null'}}`);
      break;
    case 'duplicate-part':
      replacement = Array.isArray(target.node) ? [...target.node, ...target.node] : target.node;
      break;
    default: // delete
      if (target.parent === null) return op.value;
      if (Array.isArray(target.parent)) target.parent.splice(Number(target.key), 1);
      else delete target.parent[target.key as string];
      return root;
  }
  if (target.parent === null) return replacement;
  // defineProperty, not assignment: `obj['__proto__'] = x` would set a prototype.
  Object.defineProperty(target.parent, target.key, {
    value: replacement,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return root;
}

/** Round-trips through JSON so objects have Object.prototype and `__proto__` keys stay own data. */
export function toJsonNative(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

export function assertPrototypeClean(assertEqual: (a: unknown, b: unknown) => void): void {
  assertEqual(Object.getOwnPropertyNames(Object.prototype).length, PROTO_NAMES);
  assertEqual(({} as Record<string, unknown>)['polluted'], undefined);
  assertEqual(Object.getPrototypeOf({}), Object.prototype);
}
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).length;

/** A plain object as the extractors must return: not an array, prototype Object.prototype or null. */
export function isPlainResult(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The property every TaskResult builder must hold, whatever the input: a known status, `raw` the
 * input itself, an error code on failed/rejected results, a throw only as AdcpWireError, the input
 * untouched and Object.prototype clean. `runs` fast-check runs.
 */
export function assertTaskResultBuilder(
  build: (input: unknown) => TaskResult,
  inputs: fc.Arbitrary<unknown>,
  runs: number,
): void {
  fc.assert(
    fc.property(inputs, (input) => {
      const before = structuredClone(input);
      try {
        const result = build(input);
        assert.ok((TASK_STATUSES as readonly string[]).includes(result.status));
        assert.equal(result.raw, input);
        if (result.status === 'failed' || result.status === 'rejected')
          assert.equal(typeof result.error.code, 'string');
      } catch (error) {
        assert.ok(error instanceof AdcpWireError, String(error));
      }
      assert.deepStrictEqual(input, before);
      assertPrototypeClean(assert.equal);
    }),
    { numRuns: runs },
  );
}
