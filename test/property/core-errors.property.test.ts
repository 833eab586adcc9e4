import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseJsonStrict } from '../../src/core/json.js';
import {
  extractAdcpError,
  extractAdcpErrorFromA2A,
  extractAdcpErrorFromJsonRpc,
  extractAdcpErrorFromMcp,
  MAX_ADCP_ERROR_BYTES,
} from '../../src/core/extract-error.js';
import { extractWebhookPayload } from '../../src/core/webhook-payload.js';
import { validateWebhookEnvelope } from '../../src/core/webhook-envelope.js';
import { TASK_STATUSES } from '../../src/core/types.js';
import { utf8ByteLength } from '../../src/core/json.js';

const RUNS = 10_000;

// Keys of every envelope the extractors read, plus the prototype-pollution classics.
const KEYS = [
  'isError',
  'structuredContent',
  'adcp_error',
  'content',
  'type',
  'text',
  'code',
  'recovery',
  'retry_after',
  'artifacts',
  'artifact',
  'parts',
  'data',
  'kind',
  'status',
  'state',
  'message',
  'error',
  'task',
  'statusUpdate',
  'artifactUpdate',
  'result',
  'task_id',
  'taskId',
  'errors',
  'payload',
  'response',
  'idempotency_key',
  'operation_id',
  'task_type',
  'timestamp',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
];
const WORDS = [
  'text',
  'data',
  'file',
  'completed',
  'failed',
  'working',
  'input-required',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_WORKING',
  'TASK_STATE_İNPUT_REQUIRED',
  'RATE_LIMITED',
  'transient',
  'deferred',
  '{"adcp_error":{"code":"RATE_LIMITED","retry_after":5}}',
  '{"adcp_error":{"code":1}}',
  '{"adcp_error":',
  '{"__proto__":{"polluted":1},"adcp_error":{"code":"A"}}',
  'whk_0123456789abcdef',
  '2026-01-01T00:00:00Z',
];

const leaf = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

/** Objects built with Object.fromEntries, so `__proto__` becomes an own key as JSON.parse makes it. */
const { value: envelopeArb } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 })), tie('value')), { maxLength: 6 })
      .map((entries) => Object.fromEntries(entries)),
  ),
}));

const errorArb = fc
  .record(
    {
      code: fc.oneof(
        { arbitrary: fc.constantFrom('RATE_LIMITED', 'BUDGET_TOO_LOW', 'X_VENDOR_Y', 'constructor'), weight: 6 },
        { arbitrary: fc.constantFrom('', 'C'.repeat(65)), weight: 1 },
        { arbitrary: fc.integer(), weight: 1 },
      ),
      message: fc.oneof(
        { arbitrary: fc.string({ maxLength: 20 }), weight: 6 },
        { arbitrary: fc.constant('x'.repeat(5000)), weight: 1 },
      ),
      recovery: fc.constantFrom('transient', 'correctable', 'terminal', 'deferred', 7),
      retry_after: fc.oneof(fc.double(), fc.integer()),
    },
    { requiredKeys: ['code'] },
  )
  .chain((r) =>
    fc
      .boolean()
      .map((proto) =>
        Object.fromEntries([...Object.entries(r), ...(proto ? [['__proto__', { polluted: true }]] : [])]),
      ),
  );
const stateArb = fc.constantFrom(
  'completed',
  'failed',
  'working',
  'input-required',
  'canceled',
  'rejected',
  'submitted',
  'auth-required',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'Completed',
  'weird',
);
const dataArb = fc.oneof(
  errorArb.map((e) => ({ adcp_error: e })),
  fc.constant({ products: [1, 2] }),
  fc.constant({ response: { products: [] } }),
  envelopeArb,
);
const partArb = fc.oneof(
  dataArb.map((data) => ({ kind: 'data', data })),
  dataArb.map((data) => ({ data })),
  fc.constant({ kind: 'text', text: 'hello' }),
  fc.constant({ text: 'hello' }),
  dataArb.map((data) => ({ text: 'both', data })),
  envelopeArb,
);
const taskArb = fc
  .record(
    {
      id: fc.constant('task_1'),
      status: fc.record(
        { state: stateArb, message: fc.record({ parts: fc.array(partArb, { maxLength: 3 }) }) },
        { requiredKeys: ['state'] },
      ),
      artifacts: fc.array(fc.record({ parts: fc.array(partArb, { maxLength: 3 }) }), { maxLength: 2 }),
    },
    { requiredKeys: ['status'] },
  )
  .chain((task) =>
    fc.constantFrom<unknown>(
      task,
      { task },
      { statusUpdate: task },
      { task: { task } },
      { artifactUpdate: { artifact: task.artifacts?.[0] ?? {} } },
    ),
  );
const mcpArb = fc.record(
  {
    isError: fc.constantFrom<unknown>(true, false, 'true', 1),
    structuredContent: fc.oneof(
      errorArb.map((e) => ({ adcp_error: e })),
      envelopeArb,
    ),
    content: fc.array(
      fc.oneof(
        errorArb.map((e) => ({ type: 'text', text: JSON.stringify({ adcp_error: e }) })),
        fc.string({ maxLength: 30 }).map((text) => ({ type: 'text', text })),
        envelopeArb,
      ),
      { maxLength: 3 },
    ),
  },
  { requiredKeys: [] },
);
const rpcArb = fc.oneof(
  errorArb.map((e) => ({ jsonrpc: '2.0', id: 1, error: { code: -32029, message: 'm', data: { adcp_error: e } } })),
  envelopeArb.map((data) => ({ jsonrpc: '2.0', id: 1, error: { code: -32600, data } })),
);
const webhookArb = fc.record(
  {
    idempotency_key: fc.constantFrom<unknown>('whk_0123456789abcdef', 'short', 5),
    operation_id: fc.constant('op'),
    task_id: fc.constantFrom<unknown>('t', '', null),
    task_type: fc.constant('create_media_buy'),
    status: fc.oneof(stateArb, fc.constant<unknown>({ state: 'completed' })),
    timestamp: fc.constantFrom('2026-01-01T00:00:00Z', 'yesterday'),
    result: fc.oneof(dataArb, envelopeArb),
  },
  { requiredKeys: [] },
);
/** Plausible envelopes of every kind, and pure noise. */
const wireArb = fc.oneof(taskArb, mcpArb, rpcArb, webhookArb, envelopeArb);

function assertNoPollution(): void {
  assert.deepEqual(Object.keys(Object.prototype), []);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

function assertValidError(error: unknown): void {
  if (error === null) return;
  assert.equal(typeof error, 'object');
  assert.equal(Array.isArray(error), false);
  const code = (error as { code: unknown }).code;
  assert.equal(typeof code, 'string');
  assert.ok((code as string).length >= 1 && (code as string).length <= 64);
  assert.ok(utf8ByteLength(JSON.stringify(error)) <= MAX_ADCP_ERROR_BYTES);
}

afterEach(assertNoPollution);

const ws = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');

describe('parseJsonStrict (property)', () => {
  it('round-trips every JSON.stringify output, which never repeats a key', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), ws, (value, indent) => {
        const result = parseJsonStrict(JSON.stringify(value, null, indent));
        assert.equal(result.ok, true);
        assert.deepEqual(result.ok && result.value, JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: RUNS },
    );
  });
  it('finds a key repeated anywhere in the document', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({ maxLength: 8 }),
        fc.jsonValue({ maxDepth: 1 }),
        ws,
        ws,
        (outer, key, v, w1, w2) => {
          const k = JSON.stringify(key);
          const dup = `{${k}${w1}:${JSON.stringify(v, null, w2)},"pad":0,${k}${w2}:${w1}1}`;
          const text = `[${JSON.stringify(outer, null, w1)},{"wrap":${dup}}]`;
          const result = parseJsonStrict(text);
          assert.equal(result.ok, false);
          assert.equal(!result.ok && result.reason, 'duplicate_key');
          assert.equal(!result.ok && result.key, key === 'pad' ? 'pad' : key);
        },
      ),
      { numRuns: RUNS },
    );
  });
  it('never throws on arbitrary or mutated text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        ),
        fc.nat(64),
        fc.string({ maxLength: 3 }),
        (text, at, insert) => {
          const mutated = text.slice(0, at) + insert + text.slice(at);
          const result = parseJsonStrict(mutated, { maxBytes: 512 });
          assert.ok(['boolean'].includes(typeof result.ok));
          if (!result.ok) assert.ok(['too_large', 'invalid_json', 'duplicate_key'].includes(result.reason));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('error extractors (property)', () => {
  it('never throw, never modify their input and return null or a valid adcp_error', () => {
    let found = 0;
    fc.assert(
      fc.property(wireArb, (input) => {
        const before = JSON.stringify(input);
        if (extractAdcpError(input) !== null) found++;
        for (const extract of [
          extractAdcpErrorFromMcp,
          extractAdcpErrorFromA2A,
          extractAdcpErrorFromJsonRpc,
          extractAdcpError,
        ]) {
          assertValidError(extract(input));
          assertValidError(
            extract({ isError: true, structuredContent: input, content: [{ type: 'text', text: before }] }),
          );
          assertValidError(
            extract({ artifacts: [{ parts: [{ data: input }] }], status: { message: { parts: [input] } } }),
          );
          assertValidError(extract({ error: { data: input } }));
        }
        assert.equal(JSON.stringify(input), before);
      }),
      { numRuns: RUNS },
    );
    assert.ok(found > RUNS / 25, `the generator reaches real errors (${found} found)`);
  });
});

describe('extractWebhookPayload (property)', () => {
  const statuses: readonly unknown[] = TASK_STATUSES;
  it('never throws, never modifies its input and returns a well-formed answer', () => {
    let withData = 0;
    fc.assert(
      fc.property(wireArb, fc.constantFrom(undefined, 'mcp', 'a2a'), (input, knownFormat) => {
        const before = JSON.stringify(input);
        const wrapped = [
          input,
          { task: input },
          { statusUpdate: { status: { state: 'working', message: { parts: [input] } } } },
        ];
        for (const payload of wrapped) {
          const out = extractWebhookPayload(payload, knownFormat === undefined ? {} : { knownFormat });
          if (out.data !== null) withData++;
          assert.ok(out.format === null || out.format === 'mcp' || out.format === 'a2a');
          assert.ok(out.status === null || statuses.includes(out.status));
          assert.ok(out.data === null || (typeof out.data === 'object' && !Array.isArray(out.data)));
          const check = validateWebhookEnvelope(payload);
          assert.equal(typeof check.ok, 'boolean');
        }
        assert.equal(JSON.stringify(input), before);
      }),
      { numRuns: RUNS },
    );
    assert.ok(withData > RUNS / 20, `the generator reaches real data (${withData} found)`);
  });
});
