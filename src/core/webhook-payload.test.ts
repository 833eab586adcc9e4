import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectWebhookFormat, extractWebhookPayload } from './webhook-payload.js';

const data = { media_buy_id: 'mb_1' };
const completedTask = {
  id: 't',
  status: { state: 'TASK_STATE_COMPLETED' },
  artifacts: [{ parts: [{ text: 'ok' }, { data }] }],
};

describe('detectWebhookFormat', () => {
  it('reads a string status with task_id as MCP and a status object with state as A2A', () => {
    assert.equal(detectWebhookFormat({ task_id: 't', status: 'completed' }), 'mcp');
    assert.equal(detectWebhookFormat({ status: { state: 'working' } }), 'a2a');
  });
  it('does not call a string status without task_id MCP', () => {
    assert.equal(detectWebhookFormat({ status: 'completed', result: data }), null);
  });
  it('reads 1.0 stream envelopes and v0.3 update events as A2A', () => {
    assert.equal(detectWebhookFormat({ task: completedTask }), 'a2a');
    assert.equal(detectWebhookFormat({ artifactUpdate: { taskId: 't', artifact: { parts: [] } } }), 'a2a');
    assert.equal(detectWebhookFormat({ kind: 'artifact-update', taskId: 't', artifact: { parts: [] } }), 'a2a');
  });
  it('returns null for non-objects and unrelated objects', () => {
    for (const v of [null, 'x', [], { hello: 1 }]) assert.equal(detectWebhookFormat(v), null);
  });
});

describe('extractWebhookPayload', () => {
  it('extracts a 1.0 { task } push notification with the normalised state', () => {
    assert.deepEqual(extractWebhookPayload({ task: completedTask }), { format: 'a2a', status: 'completed', data });
  });
  it('extracts a 1.0 { statusUpdate } with the first DataPart of the status message', () => {
    const payload = {
      statusUpdate: {
        taskId: 't',
        status: {
          state: 'TASK_STATE_WORKING',
          message: { parts: [{ data: { percentage: 10 } }, { data: { percentage: 20 } }] },
        },
      },
    };
    assert.deepEqual(extractWebhookPayload(payload), { format: 'a2a', status: 'working', data: { percentage: 10 } });
  });
  it('gives no status and no data for an artifact update, which carries no task state', () => {
    assert.deepEqual(extractWebhookPayload({ artifactUpdate: { taskId: 't', artifact: { parts: [{ data }] } } }), {
      format: 'a2a',
      status: null,
      data: null,
    });
  });
  it('reports a nested envelope instead of recursing', () => {
    assert.deepEqual(extractWebhookPayload({ task: { task: completedTask } }), {
      format: 'a2a',
      status: null,
      data: null,
      problem: 'nested_envelope',
    });
  });
  it('reports a response wrapper without throwing', () => {
    const payload = { status: { state: 'completed' }, artifacts: [{ parts: [{ data: { response: data } }] }] };
    assert.deepEqual(extractWebhookPayload(payload), {
      format: 'a2a',
      status: 'completed',
      data: null,
      problem: 'wrapper_detected',
    });
  });
  it('reports an unknown A2A state', () => {
    assert.equal(extractWebhookPayload({ status: { state: 'TASK_STATE_PONDERING' } }).problem, 'unknown_state');
  });
  it('reports an oversized DataPart', () => {
    const payload = { status: { state: 'completed' }, artifacts: [{ parts: [{ data: { blob: 'x'.repeat(100) } }] }] };
    assert.equal(extractWebhookPayload(payload, { maxDataPartBytes: 50 }).problem, 'too_large');
  });
  it('follows the known format over detection', () => {
    const ambiguous = {
      task_id: 't',
      status: 'completed',
      result: data,
      artifacts: [{ parts: [{ data: { other: 1 } }] }],
    };
    assert.deepEqual(extractWebhookPayload(ambiguous, { knownFormat: 'a2a' }), {
      format: 'a2a',
      status: null,
      data: null,
    });
    assert.deepEqual(extractWebhookPayload(ambiguous, { knownFormat: 'mcp' }), {
      format: 'mcp',
      status: 'completed',
      data,
    });
  });
  it('gives a null status for an MCP status outside the AdCP set, and null data for a non-object result', () => {
    assert.deepEqual(extractWebhookPayload({ task_id: 't', status: 'done', result: [1] }), {
      format: 'mcp',
      status: null,
      data: null,
    });
  });
});
