import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unwrapPolledResult } from './unwrap-polled-result.js';
import { taskResultFromMcp } from '../core/task-result-from-mcp.js';

const poll = (body: Record<string, unknown>) =>
  unwrapPolledResult(taskResultFromMcp({ content: [], structuredContent: body }));

describe('unwrapPolledResult', () => {
  it('makes the envelope result the data of a completed task', () => {
    const result = poll({ task_id: 't', status: 'completed', result: { media_buy_id: 'mb' } });
    assert.deepEqual(result.data, { media_buy_id: 'mb' });
    assert.equal(result.taskId, 't');
  });

  it('keeps the envelope as data when a final poll has no result', () => {
    assert.deepEqual(poll({ task_id: 't', status: 'canceled' }).data, { task_id: 't', status: 'canceled' });
  });

  it('takes the error of a failed task from its result payload', () => {
    const result = poll({
      task_id: 't',
      status: 'failed',
      result: { errors: [{ code: 'CREATIVE_REJECTED', message: 'no' }] },
    });
    assert.ok(result.status === 'failed');
    assert.equal(result.error.code, 'CREATIVE_REJECTED');
    assert.equal(result.error.action, 'surface_to_caller');
  });

  it('falls back to the envelope error summary', () => {
    const result = poll({ task_id: 't', status: 'failed', error: { code: 'ACCOUNT_SUSPENDED' } });
    assert.ok(result.status === 'failed');
    assert.equal(result.error.code, 'ACCOUNT_SUSPENDED');
  });

  it('reads progress from a nested progress object', () => {
    const result = poll({ task_id: 't', status: 'working', progress: { percentage: 40, current_step: 'review' } });
    assert.ok(result.status === 'working');
    assert.deepEqual(result.progress, { percentage: 40, step: 'review' });
  });
});
