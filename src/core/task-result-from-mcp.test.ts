import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { taskResultFromMcp } from './task-result-from-mcp.js';
import { AdcpWireError } from './wire-error.js';

const sc = (structuredContent: Record<string, unknown>) => ({
  content: [{ type: 'text', text: 'summary' }],
  structuredContent,
});

describe('taskResultFromMcp', () => {
  it('reads a flat envelope: body and envelope fields are siblings, data is the whole root', () => {
    const body = { status: 'completed', message: 'Found 1', context: { ui: 'x' }, task_id: 'tk', products: [] };
    const result = taskResultFromMcp(sc(body));
    assert.equal(result.status, 'completed');
    assert.equal(result.data, body);
    assert.equal(result.message, 'Found 1');
    assert.deepEqual(result.context, { ui: 'x' });
    assert.equal(result.taskId, 'tk');
    assert.equal(result.protocol, 'mcp');
  });
  it('treats a response without status as completed', () => {
    assert.equal(taskResultFromMcp(sc({ products: [] })).status, 'completed');
  });
  it('treats an error arm (only errors[], no adcp_error) as failed with errors[0] and its message', () => {
    const body = { errors: [{ code: 'BUDGET_TOO_LOW', message: 'Raise\u0007 the budget', recovery: 'correctable' }] };
    const result = taskResultFromMcp(sc(body));
    assert.equal(result.status, 'failed');
    assert.equal(result.status === 'failed' ? result.error.code : '', 'BUDGET_TOO_LOW');
    assert.equal(result.status === 'failed' ? result.error.message : '', 'Raise the budget');
    assert.deepEqual(result.data, body);
    const declined = { success: false, errors: [{ code: 'CONFLICT', message: 'x' }], conflicting_standards_id: 's1' };
    assert.equal(taskResultFromMcp(sc(declined)).status, 'failed');
  });

  it('keeps a result with errors[] beside success fields, or with success true, completed', () => {
    const partial = { products: [], errors: [{ code: 'PLACE_TARGET_UNAVAILABLE', message: 'x' }] };
    assert.equal(taskResultFromMcp(sc(partial)).status, 'completed');
    assert.equal(taskResultFromMcp(sc({ success: true, errors: [{ code: 'X', message: 'x' }] })).status, 'completed');
    assert.equal(taskResultFromMcp(sc({ errors: [] })).status, 'completed');
    assert.equal(taskResultFromMcp(sc({ errors: ['not an error object'] })).status, 'completed');
  });

  it('treats a response without status but with adcp_error as failed with that error', () => {
    const result = taskResultFromMcp(sc({ adcp_error: { code: 'BUDGET_TOO_LOW' }, context: { a: 1 } }));
    assert.equal(result.status, 'failed');
    assert.equal(result.status === 'failed' && result.error.code, 'BUDGET_TOO_LOW');
    assert.deepEqual(result.context, { a: 1 });
  });
  it('keeps the payload status when a completed MCP Task delivers AdCP submitted', () => {
    const result = taskResultFromMcp(sc({ status: 'submitted', task_id: 'adcp_1' }), { transportTaskId: 'mcp_task_9' });
    assert.equal(result.status, 'submitted');
    assert.equal(result.taskId, 'adcp_1');
    assert.equal(result.transportTaskId, 'mcp_task_9');
  });
  it('turns an isError result with adcp_error into failed with recovery, action and delay', () => {
    const raw = {
      isError: true,
      content: [],
      structuredContent: { adcp_error: { code: 'RATE_LIMITED', retry_after: 4.2, message: 'slow' } },
    };
    const result = taskResultFromMcp(raw);
    assert.equal(result.status, 'failed');
    if (result.status !== 'failed') return;
    assert.deepEqual(
      {
        code: result.error.code,
        recovery: result.error.recovery,
        action: result.error.action,
        delay: result.error.retryDelaySeconds,
      },
      { code: 'RATE_LIMITED', recovery: 'transient', action: 'retry', delay: 5 },
    );
    assert.equal(result.message, 'slow');
    assert.equal(result.raw, raw);
  });
  it('reads the adcp_error of an isError text-only result', () => {
    const raw = { isError: true, content: [{ type: 'text', text: '{"adcp_error":{"code":"AUTH_INVALID"}}' }] };
    const result = taskResultFromMcp(raw);
    assert.equal(result.status === 'failed' && result.error.code, 'AUTH_INVALID');
  });
  it('gives a failed result with a generic_error action for an isError result without adcp_error', () => {
    const result = taskResultFromMcp({ isError: true, content: [{ type: 'text', text: 'Tool exploded' }] });
    assert.equal(result.status, 'failed');
    if (result.status !== 'failed') return;
    assert.equal(result.error.action, 'generic_error');
    assert.equal(result.message, 'Tool exploded');
  });
  it('keeps plain text as completed with data undefined and the text sanitised', () => {
    const result = taskResultFromMcp({ content: [{ type: 'text', text: 'Line one\r\nLine two\u0007' }] });
    assert.equal(result.status, 'completed');
    assert.equal(result.data, undefined);
    assert.equal(result.status === 'completed' && result.text, 'Line one Line two');
  });
  it('reports interim progress from percentage and current_step', () => {
    const result = taskResultFromMcp(sc({ status: 'working', percentage: 45, current_step: 'scoring' }));
    assert.equal(result.status, 'working');
    assert.deepEqual(result.status === 'working' && result.progress, { percentage: 45, step: 'scoring' });
  });
  it('gives a rejected payload its error from errors[0] when there is no adcp_error', () => {
    const result = taskResultFromMcp(sc({ status: 'rejected', errors: [{ code: 'POLICY_VIOLATION', message: 'no' }] }));
    assert.equal(result.status, 'rejected');
    assert.equal(result.status === 'rejected' && result.error.code, 'POLICY_VIOLATION');
  });
  it('keeps a non-task status string (a body field such as a governance decision) as completed data', () => {
    const result = taskResultFromMcp(sc({ status: 'conditions', conditions: [] }));
    assert.equal(result.status, 'completed');
    assert.equal(result.data?.['status'], 'conditions');
  });
  it('throws a typed protocol error for a misspelt task status or a non-string status', () => {
    for (const status of ['INPUT_REQUIRED', 'Completed', 'TASK_STATE_WORKING', 3, { s: 1 }]) {
      assert.throws(
        () => taskResultFromMcp(sc({ status })),
        (e: unknown) => e instanceof AdcpWireError && e.code === 'protocol',
      );
    }
  });
  it('throws response_too_large when the only JSON text was over maxBytes', () => {
    const raw = { content: [{ type: 'text', text: `{"pad":"${'x'.repeat(100)}"}` }] };
    assert.throws(() => taskResultFromMcp(raw, { maxBytes: 50 }), { code: 'response_too_large' });
  });
  it('throws a typed protocol error for a result that is not an object', () => {
    for (const raw of [null, 'x', [], 3]) assert.throws(() => taskResultFromMcp(raw), { code: 'protocol' });
  });
});
