import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { taskResultFromA2A } from './task-result-from-a2a.js';
import { AdcpWireError } from './wire-error.js';

const completed = (data: Record<string, unknown>, state = 'TASK_STATE_COMPLETED') => ({
  id: 'a2a_task',
  contextId: 'ctx',
  status: { state },
  artifacts: [{ artifactId: 'r', parts: [{ text: 'Done.' }, { data }] }],
});

describe('taskResultFromA2A', () => {
  it('builds a completed result with transportTaskId, contextId, taskId, context and message', () => {
    const data = { status: 'completed', task_id: 'adcp_t', context: { trace: 1 }, products: [] };
    const result = taskResultFromA2A({ task: completed(data) });
    assert.equal(result.status, 'completed');
    assert.equal(result.data, data);
    assert.equal(result.transportTaskId, 'a2a_task');
    assert.equal(result.contextId, 'ctx');
    assert.equal(result.taskId, 'adcp_t');
    assert.deepEqual(result.context, { trace: 1 });
    assert.equal(result.message, 'Done.');
    assert.equal(result.protocol, 'a2a');
  });
  it('lets the AdCP payload status win over an A2A completed state (submitted, rejected)', () => {
    assert.equal(taskResultFromA2A(completed({ status: 'submitted', task_id: 'x' })).status, 'submitted');
    const rejected = taskResultFromA2A(completed({ status: 'rejected', reason: 'policy' }));
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.status === 'rejected' && rejected.error.action, 'generic_error');
  });
  it('is completed when the payload has no status, failed when it carries only adcp_error', () => {
    assert.equal(taskResultFromA2A(completed({ products: [] })).status, 'completed');
    const failed = taskResultFromA2A(completed({ adcp_error: { code: 'BUDGET_TOO_LOW' } }));
    assert.equal(failed.status === 'failed' && failed.error.action, 'surface_to_caller');
  });
  it('gives a failed task its adcp_error from any artifact, then from the status message', () => {
    const inSecond = {
      id: 't',
      status: { state: 'failed' },
      artifacts: [
        { parts: [{ text: 'x' }] },
        { parts: [{ data: { adcp_error: { code: 'RATE_LIMITED', retry_after: 2 } } }] },
      ],
    };
    const a = taskResultFromA2A(inSecond);
    assert.equal(a.status === 'failed' && a.error.code, 'RATE_LIMITED');
    const inMessage = {
      id: 't',
      status: {
        state: 'TASK_STATE_REJECTED',
        message: { parts: [{ data: { adcp_error: { code: 'POLICY_VIOLATION' } } }] },
      },
    };
    const b = taskResultFromA2A(inMessage);
    assert.equal(b.status, 'rejected');
    assert.equal(b.status === 'rejected' && b.error.code, 'POLICY_VIOLATION');
  });
  it('gives a failed task without adcp_error a generic_error with the sanitised text', () => {
    const t = { id: 't', status: { state: 'failed', message: { parts: [{ kind: 'text', text: 'Auth failed\r\n' }] } } };
    const result = taskResultFromA2A(t);
    assert.equal(result.status === 'failed' && result.error.action, 'generic_error');
    assert.equal(result.message, 'Auth failed');
  });
  it('keeps the A2A state for interim states and reports progress', () => {
    const event = {
      statusUpdate: {
        taskId: 't9',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_WORKING',
          message: { parts: [{ text: 'Scoring' }, { data: { percentage: 72, current_step: 'scoring' } }] },
        },
      },
    };
    const result = taskResultFromA2A(event);
    assert.equal(result.status, 'working');
    assert.equal(result.transportTaskId, 't9');
    assert.deepEqual(result.status === 'working' && result.progress, { percentage: 72, step: 'scoring' });
    assert.equal(result.message, 'Scoring');
  });
  it('maps input-required and auth-required through', () => {
    const t = (state: string) => ({ id: 't', status: { state, message: { parts: [{ data: { reason: 'x' } }] } } });
    assert.equal(taskResultFromA2A(t('TASK_STATE_INPUT_REQUIRED')).status, 'input-required');
    assert.equal(taskResultFromA2A(t('auth-required')).status, 'auth-required');
  });
  it('reports a canceled task with its error when it has one', () => {
    const t = {
      id: 't',
      status: { state: 'canceled' },
      artifacts: [{ parts: [{ data: { adcp_error: { code: 'SESSION_TERMINATED' } } }] }],
    };
    const result = taskResultFromA2A(t);
    assert.equal(result.status, 'canceled');
    assert.equal(result.status === 'canceled' && result.error?.code, 'SESSION_TERMINATED');
  });
  it('gives an unknown state a visible working result instead of throwing', () => {
    const result = taskResultFromA2A({ id: 't', status: { state: 'TASK_STATE_PAUSED\r\n' } });
    assert.equal(result.status, 'working');
    assert.equal(result.data, undefined);
    assert.equal(result.message, 'unknown A2A task state "TASK_STATE_PAUSED"');
  });
  it('gives an agent Message reply a completed result with its text', () => {
    const result = taskResultFromA2A({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'Hello' }] } });
    assert.equal(result.status, 'completed');
    assert.equal(result.status === 'completed' && result.text, 'Hello');
  });
  it('throws typed errors for wrappers, nested envelopes, stateless events and oversized DataParts', () => {
    const code = (c: string) => (e: unknown) => e instanceof AdcpWireError && e.code === c;
    assert.throws(() => taskResultFromA2A(completed({ response: { products: [] } })), code('wrapper_detected'));
    assert.throws(() => taskResultFromA2A({ task: { task: completed({}) } }), code('protocol'));
    assert.throws(
      () => taskResultFromA2A({ artifactUpdate: { taskId: 't', artifact: { parts: [] } } }),
      code('protocol'),
    );
    assert.throws(
      () => taskResultFromA2A(completed({ s: 'x'.repeat(100) }), { maxDataPartBytes: 50 }),
      code('response_too_large'),
    );
    assert.throws(() => taskResultFromA2A(7), code('protocol'));
  });
});
