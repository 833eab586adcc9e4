import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  extractAdcpError,
  extractAdcpErrorFromA2A,
  extractAdcpErrorFromJsonRpc,
  extractAdcpErrorFromMcp,
  extractPayloadError,
  validateAdcpError,
} from './extract-error.js';

const rate = { code: 'RATE_LIMITED', recovery: 'transient', retry_after: 5 };

describe('validateAdcpError', () => {
  it('accepts a code of 1 and of 64 characters', () => {
    assert.deepEqual(validateAdcpError({ code: 'X' }), { code: 'X' });
    assert.equal(validateAdcpError({ code: 'C'.repeat(64) })?.code.length, 64);
  });
  it('rejects an empty code, a 65-character code and a non-string code', () => {
    for (const code of ['', 'C'.repeat(65), 429, null, ['A']]) assert.equal(validateAdcpError({ code }), null);
  });
  it('rejects arrays, null and scalars', () => {
    for (const v of [null, [], 'RATE_LIMITED', 1, [{ code: 'A' }]]) assert.equal(validateAdcpError(v), null);
  });
  it('rejects an error over 4096 UTF-8 bytes once serialised, counting bytes not characters', () => {
    const base = JSON.stringify({ code: 'A', message: '' }).length; // 24
    assert.notEqual(validateAdcpError({ code: 'A', message: 'x'.repeat(4096 - base) }), null);
    assert.equal(validateAdcpError({ code: 'A', message: 'x'.repeat(4097 - base) }), null);
    // 1,400 euro signs: 1,424 characters but 4,224 bytes.
    assert.equal(validateAdcpError({ code: 'A', message: '€'.repeat(1400) }), null);
  });
  it('returns null for a cyclic object instead of throwing', () => {
    const cyclic: Record<string, unknown> = { code: 'A' };
    cyclic['self'] = cyclic;
    assert.equal(validateAdcpError(cyclic), null);
  });
  it('keeps out-of-range retry_after untouched (clamping is the action layer)', () => {
    assert.deepEqual(validateAdcpError({ code: 'RATE_LIMITED', retry_after: 99999 }), {
      code: 'RATE_LIMITED',
      retry_after: 99999,
    });
  });
});

describe('extractAdcpErrorFromMcp', () => {
  it('prefers structuredContent over the text fallback', () => {
    const result = {
      isError: true,
      structuredContent: { adcp_error: rate },
      content: [{ type: 'text', text: '{"adcp_error":{"code":"OTHER"}}' }],
    };
    assert.deepEqual(extractAdcpErrorFromMcp(result), rate);
  });
  it('ignores JSON error text on a result without isError: true', () => {
    const text = JSON.stringify({ adcp_error: rate });
    assert.equal(extractAdcpErrorFromMcp({ content: [{ type: 'text', text }] }), null);
    assert.equal(extractAdcpErrorFromMcp({ isError: 'true', content: [{ type: 'text', text }] }), null);
    assert.equal(extractAdcpErrorFromMcp({ isError: false, structuredContent: { adcp_error: rate } }), null);
  });
  it('reads the first text item that parses to an object with adcp_error, skipping prose', () => {
    const result = {
      isError: true,
      content: [
        { type: 'text', text: 'adcp_error happened' },
        { type: 'text', text: JSON.stringify({ adcp_error: rate }) },
      ],
    };
    assert.deepEqual(extractAdcpErrorFromMcp(result), rate);
  });
  it('ignores arrays and non-text items in the text fallback', () => {
    const result = {
      isError: true,
      content: [
        { type: 'text', text: JSON.stringify([{ adcp_error: rate }]) },
        { type: 'image', text: JSON.stringify({ adcp_error: rate }) },
      ],
    };
    assert.equal(extractAdcpErrorFromMcp(result), null);
  });
  it('refuses error text with duplicate keys (parser differential)', () => {
    const text = '{"adcp_error":{"code":"RATE_LIMITED","code":"ACCOUNT_SUSPENDED"}}';
    assert.equal(extractAdcpErrorFromMcp({ isError: true, content: [{ type: 'text', text }] }), null);
  });
  it('does not let a __proto__ key in error text reach any prototype', () => {
    const text = '{"adcp_error":{"code":"A","__proto__":{"polluted":true}}}';
    const error = extractAdcpErrorFromMcp({ isError: true, content: [{ type: 'text', text }] });
    assert.equal(error?.code, 'A');
    assert.equal(Object.getPrototypeOf(error), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
  it('returns null for non-objects', () => {
    for (const v of [null, undefined, 'x', 1, []]) assert.equal(extractAdcpErrorFromMcp(v), null);
  });
});

describe('extractAdcpErrorFromA2A', () => {
  it('finds a 1.0 DataPart without kind in the artifacts', () => {
    const task = {
      status: { state: 'TASK_STATE_FAILED' },
      artifacts: [{ parts: [{ text: 'no' }, { data: { adcp_error: rate } }] }],
    };
    assert.deepEqual(extractAdcpErrorFromA2A(task), rate);
  });
  it('scans every artifact, then status.message.parts', () => {
    const later = {
      artifacts: [{ parts: [{ kind: 'text', text: 'x' }] }, { parts: [{ kind: 'data', data: { adcp_error: rate } }] }],
    };
    assert.deepEqual(extractAdcpErrorFromA2A(later), rate);
    const inMessage = { status: { state: 'failed', message: { parts: [{ data: { adcp_error: rate } }] } } };
    assert.deepEqual(extractAdcpErrorFromA2A(inMessage), rate);
  });
  it('prefers artifacts over status.message.parts', () => {
    const task = {
      status: { state: 'failed', message: { parts: [{ data: { adcp_error: { code: 'FROM_MESSAGE' } } }] } },
      artifacts: [{ parts: [{ data: { adcp_error: { code: 'FROM_ARTIFACT' } } }] }],
    };
    assert.equal(extractAdcpErrorFromA2A(task)?.code, 'FROM_ARTIFACT');
  });
  it('unwraps a 1.0 stream envelope once and refuses a nested one', () => {
    const task = { status: { state: 'TASK_STATE_FAILED' }, artifacts: [{ parts: [{ data: { adcp_error: rate } }] }] };
    assert.deepEqual(extractAdcpErrorFromA2A({ task }), rate);
    assert.deepEqual(
      extractAdcpErrorFromA2A({
        statusUpdate: { status: { state: 'failed', message: { parts: [{ data: { adcp_error: rate } }] } } },
      }),
      rate,
    );
    assert.equal(extractAdcpErrorFromA2A({ task: { task } }), null);
  });
  it('reads the artifact of an artifact-update event', () => {
    assert.deepEqual(
      extractAdcpErrorFromA2A({
        artifactUpdate: { taskId: 't', artifact: { parts: [{ data: { adcp_error: rate } }] } },
      }),
      rate,
    );
  });
  it('reads the parts of a bare Message answer, 1.0 envelope or v0.3 kind', () => {
    assert.deepEqual(
      extractAdcpErrorFromA2A({ message: { role: 'ROLE_AGENT', parts: [{ data: { adcp_error: rate } }] } }),
      rate,
    );
    assert.deepEqual(
      extractAdcpErrorFromA2A({
        kind: 'message',
        role: 'agent',
        parts: [{ kind: 'data', data: { adcp_error: rate } }],
      }),
      rate,
    );
    assert.equal(extractAdcpErrorFromA2A({ parts: [{ data: { adcp_error: rate } }] }), null);
  });
  it('ignores a part whose kind says it is not data', () => {
    assert.equal(
      extractAdcpErrorFromA2A({ artifacts: [{ parts: [{ kind: 'text', text: 'x', data: { adcp_error: rate } }] }] }),
      null,
    );
  });
});

describe('extractAdcpErrorFromJsonRpc', () => {
  const response = { jsonrpc: '2.0', id: 1, error: { code: -32029, message: 'Rate', data: { adcp_error: rate } } };
  it('reads error.data.adcp_error from a whole response or from its error member', () => {
    assert.deepEqual(extractAdcpErrorFromJsonRpc(response), rate);
    assert.deepEqual(extractAdcpErrorFromJsonRpc(response.error), rate);
  });
  it('reads an Error instance carrying data, like McpError', () => {
    const error = Object.assign(new Error('Rate'), { code: -32029, data: { adcp_error: rate } });
    assert.deepEqual(extractAdcpErrorFromJsonRpc(error), rate);
  });
  it('returns null when data has no adcp_error, or an invalid one', () => {
    assert.equal(extractAdcpErrorFromJsonRpc({ error: { code: -32600, message: 'Invalid Request' } }), null);
    assert.equal(extractAdcpErrorFromJsonRpc({ error: { code: -32029, data: { adcp_error: { code: 7 } } } }), null);
  });
});

describe('extractAdcpError', () => {
  it('applies structuredContent before the JSON-RPC and A2A paths', () => {
    assert.deepEqual(extractAdcpError({ isError: true, structuredContent: { adcp_error: rate } }), rate);
    assert.deepEqual(extractAdcpError({ jsonrpc: '2.0', error: { code: -32029, data: { adcp_error: rate } } }), rate);
    assert.deepEqual(extractAdcpError({ artifacts: [{ parts: [{ data: { adcp_error: rate } }] }] }), rate);
  });
});

describe('extractPayloadError', () => {
  it('reads errors[0], then payload.errors[0], validated', () => {
    assert.deepEqual(extractPayloadError({ errors: [{ code: 'A' }, { code: 'B' }] }), { code: 'A' });
    assert.deepEqual(extractPayloadError({ payload: { errors: [{ code: 'P' }] } }), { code: 'P' });
    assert.equal(extractPayloadError({ errors: [{ message: 'no code' }] }), null);
    assert.equal(extractPayloadError({ errors: [] }), null);
  });
});
