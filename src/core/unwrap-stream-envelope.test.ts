import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readStreamEnvelope, unwrapStreamEnvelope } from './unwrap-stream-envelope.js';

const task = { id: 't', status: { state: 'TASK_STATE_WORKING' } };

describe('unwrapStreamEnvelope', () => {
  it('unwraps each of the four oneof keys once', () => {
    for (const key of ['task', 'message', 'statusUpdate', 'artifactUpdate']) {
      assert.equal(unwrapStreamEnvelope({ [key]: task }), task);
      assert.equal(readStreamEnvelope({ [key]: task })?.kind, key);
    }
  });
  it('passes bare objects, multi-key objects and non-object values through', () => {
    assert.equal(unwrapStreamEnvelope(task), task);
    const two = { task, extra: 1 };
    assert.equal(unwrapStreamEnvelope(two), two);
    const scalar = { task: 'x' };
    assert.equal(unwrapStreamEnvelope(scalar), scalar);
    const array = { task: [task] };
    assert.equal(unwrapStreamEnvelope(array), array);
    assert.equal(unwrapStreamEnvelope(null), null);
    assert.equal(readStreamEnvelope(task)?.kind, 'bare');
  });
  it('returns null for nested or smuggled envelopes instead of recursing', () => {
    assert.equal(unwrapStreamEnvelope({ task: { task } }), null);
    assert.equal(unwrapStreamEnvelope({ statusUpdate: { message: task } }), null);
    assert.equal(unwrapStreamEnvelope({ task: { ...task, artifactUpdate: {} } }), null);
  });
});
