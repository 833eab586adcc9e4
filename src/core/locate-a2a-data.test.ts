import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { locateA2AData } from './locate-a2a-data.js';

const done = (parts: unknown[], state = 'TASK_STATE_COMPLETED') => ({
  id: 't',
  status: { state },
  artifacts: [{ parts }],
});

describe('locateA2AData', () => {
  it('reports found data with its path, state, envelope and the unwrapped task', () => {
    const task = done([{ data: { a: 1 } }]);
    const loc = locateA2AData({ task });
    assert.deepEqual(
      { outcome: loc.outcome, path: loc.path, state: loc.state, envelope: loc.envelope, data: loc.data },
      { outcome: 'found', path: 'artifact', state: 'completed', envelope: 'task', data: { a: 1 } },
    );
    assert.equal(loc.task, task);
  });
  it('reports the fallback path for a final state without artifacts', () => {
    const loc = locateA2AData({ id: 't', status: { state: 'failed', message: { parts: [{ data: { b: 1 } }] } } });
    assert.equal(loc.outcome, 'found');
    assert.equal(loc.path, 'status_message');
  });
  it('tells no_state, unknown_state, no_data, nested_envelope, wrapper and too_large apart', () => {
    assert.equal(locateA2AData({ message: { role: 'agent', parts: [] } }).outcome, 'no_state');
    assert.equal(locateA2AData('text').outcome, 'no_state');
    const unknown = locateA2AData({ status: { state: 'TASK_STATE_PAUSED' } });
    assert.equal(unknown.outcome, 'unknown_state');
    assert.equal(unknown.rawState, 'TASK_STATE_PAUSED');
    assert.equal(locateA2AData(done([{ text: 'x' }])).outcome, 'no_data');
    assert.equal(locateA2AData({ statusUpdate: { task: {} } }).outcome, 'nested_envelope');
    assert.equal(locateA2AData(done([{ data: { response: {} } }])).outcome, 'wrapper');
    assert.equal(locateA2AData(done([{ data: { s: 'x'.repeat(64) } }]), { maxDataPartBytes: 32 }).outcome, 'too_large');
  });
  it('does not fall back to an earlier DataPart when the authoritative one is too large', () => {
    const loc = locateA2AData(done([{ data: { small: 1 } }, { data: { s: 'x'.repeat(64) } }]), {
      maxDataPartBytes: 32,
    });
    assert.equal(loc.outcome, 'too_large');
    assert.equal(loc.data, undefined);
  });
  it('skips a Part with two content fields in both searches', () => {
    assert.deepEqual(locateA2AData(done([{ data: { ok: 1 } }, { text: 'x', data: { bad: 1 } }])).data, { ok: 1 });
    const interim = {
      status: { state: 'working', message: { parts: [{ url: 'https://x', data: { bad: 1 } }, { data: { ok: 1 } }] } },
    };
    assert.deepEqual(locateA2AData(interim).data, { ok: 1 });
  });
  it('does not check wrappers in the interim status message', () => {
    const interim = { status: { state: 'working', message: { parts: [{ data: { response: { x: 1 } } }] } } };
    assert.deepEqual(locateA2AData(interim).data, { response: { x: 1 } });
  });
  it('treats { response: null } as data, not as a wrapper', () => {
    assert.deepEqual(locateA2AData(done([{ data: { response: null } }])).data, { response: null });
  });
  it('refuses a non-finite or negative maxDataPartBytes', () => {
    for (const maxDataPartBytes of [-1, Number.NaN, Infinity]) {
      assert.throws(() => locateA2AData({}, { maxDataPartBytes }), RangeError);
    }
  });
});
