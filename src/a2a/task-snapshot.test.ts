import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TaskSnapshot, classifyEvent } from './task-snapshot.js';

describe('classifyEvent', () => {
  it('unwraps 1.0 envelopes once', () => {
    assert.deepEqual(classifyEvent({ statusUpdate: { taskId: 't', status: {} } }), {
      kind: 'statusUpdate',
      value: { taskId: 't', status: {} },
    });
  });

  it('refuses a nested envelope', () => {
    assert.deepEqual(classifyEvent({ task: { task: { id: 't' } } }), {
      kind: 'malformed',
      reason: 'nested stream envelope',
    });
  });

  it('reads v0.3 kinds and bare tasks', () => {
    assert.equal(classifyEvent({ kind: 'artifact-update', artifact: {} }).kind, 'artifactUpdate');
    assert.equal(classifyEvent({ kind: 'status-update', status: {} }).kind, 'statusUpdate');
    assert.equal(classifyEvent({ id: 't', status: { state: 'TASK_STATE_WORKING' } }).kind, 'task');
  });

  it('calls anything else malformed', () => {
    assert.deepEqual(
      [[], null, { kind: 'weird' }, { foo: 1 }].map((v) => classifyEvent(v).kind),
      ['malformed', 'malformed', 'malformed', 'malformed'],
    );
  });
});

describe('TaskSnapshot', () => {
  it('replaces, extends and adds artifacts by artifactId', () => {
    const s = new TaskSnapshot();
    s.apply({
      kind: 'task',
      value: {
        id: 't',
        contextId: 'c',
        status: { state: 'submitted' },
        artifacts: [{ artifactId: 'a', parts: [{ text: 'old' }] }],
      },
    });
    s.apply({
      kind: 'artifactUpdate',
      value: { taskId: 't', artifact: { artifactId: 'a', parts: [{ text: 'new' }] } },
    });
    s.apply({
      kind: 'artifactUpdate',
      value: { taskId: 't', append: true, artifact: { artifactId: 'a', parts: [{ data: { n: 1 } }] } },
    });
    s.apply({
      kind: 'artifactUpdate',
      value: { taskId: 't', artifact: { artifactId: 'b', parts: [{ data: { n: 2 } }] } },
    });
    s.apply({ kind: 'statusUpdate', value: { taskId: 't', status: { state: 'completed' }, final: true } });
    assert.deepEqual(s.toTask(), {
      id: 't',
      contextId: 'c',
      status: { state: 'completed' },
      artifacts: [
        { artifactId: 'a', parts: [{ text: 'new' }, { data: { n: 1 } }] },
        { artifactId: 'b', parts: [{ data: { n: 2 } }] },
      ],
    });
    assert.equal(s.final, true);
  });

  it('ignores events of another task and out-of-band messages', () => {
    const s = new TaskSnapshot();
    s.apply({ kind: 'task', value: { id: 't', status: { state: 'working' } } });
    s.apply({ kind: 'statusUpdate', value: { taskId: 'other', status: { state: 'completed' } } });
    s.apply({ kind: 'message', value: { parts: [] } });
    assert.deepEqual(s.toTask(), { id: 't', status: { state: 'working' } });
  });
});
