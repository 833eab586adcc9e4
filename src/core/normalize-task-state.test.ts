import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isTaskStatus, normalizeTaskState } from './normalize-task-state.js';

describe('normalizeTaskState', () => {
  it('maps every A2A 1.0 TASK_STATE_* token to its AdCP status', () => {
    const pairs = {
      TASK_STATE_SUBMITTED: 'submitted',
      TASK_STATE_WORKING: 'working',
      TASK_STATE_INPUT_REQUIRED: 'input-required',
      TASK_STATE_AUTH_REQUIRED: 'auth-required',
      TASK_STATE_COMPLETED: 'completed',
      TASK_STATE_FAILED: 'failed',
      TASK_STATE_REJECTED: 'rejected',
      TASK_STATE_CANCELED: 'canceled',
    };
    for (const [wire, status] of Object.entries(pairs)) assert.equal(normalizeTaskState(wire), status);
  });
  it('keeps v0.3 lowercase states as they are', () => {
    for (const s of [
      'submitted',
      'working',
      'input-required',
      'auth-required',
      'completed',
      'failed',
      'rejected',
      'canceled',
    ]) {
      assert.equal(normalizeTaskState(s), s);
    }
  });
  it('lowercases ASCII letters and turns underscores into hyphens', () => {
    assert.equal(normalizeTaskState('INPUT_REQUIRED'), 'input-required');
    assert.equal(normalizeTaskState('Completed'), 'completed');
  });
  it('refuses non-ASCII letters that toLowerCase would fold into ASCII', () => {
    assert.equal('\u0130'.toLowerCase().startsWith('i'), true, 'the trap exists');
    assert.equal(normalizeTaskState('\u0130NPUT_REQUIRED'), null); // dotted capital I
    assert.equal(normalizeTaskState('WOR\u212AING'), null); // Kelvin sign
  });
  it('compares exactly: no trimming, no collapsed separators, no double prefix', () => {
    for (const s of [
      ' completed',
      'completed\n',
      'input--required',
      'INPUT__REQUIRED',
      'TASK_STATE_TASK_STATE_WORKING',
      'task_state_working',
    ]) {
      assert.equal(normalizeTaskState(s), null, JSON.stringify(s));
    }
  });
  it('returns null for unknown states and non-strings', () => {
    for (const s of ['TASK_STATE_UNSPECIFIED', 'cancelled', 'unknown', '', 1, null, undefined, {}, ['completed']]) {
      assert.equal(normalizeTaskState(s), null);
    }
  });
  it('isTaskStatus accepts only the exact eight tokens', () => {
    assert.equal(isTaskStatus('input-required'), true);
    assert.equal(isTaskStatus('INPUT_REQUIRED'), false);
    assert.equal(isTaskStatus(3), false);
  });
});
