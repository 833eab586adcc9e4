import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { A2A_METHODS, a2aMethodRoute, invocationParams, type A2AWire } from './a2a-wire.js';

const WIRES: readonly A2AWire[] = ['1.0', '0.3'];

describe('invocationParams', () => {
  it('writes each wire its own part and role shapes', () => {
    const v1 = invocationParams('1.0', 'get_products', { brief: 'x' }, { messageId: 'm', returnImmediately: true });
    assert.deepEqual(v1, {
      message: {
        messageId: 'm',
        role: 'ROLE_USER',
        parts: [{ data: { skill: 'get_products', input: { brief: 'x' } } }],
      },
      configuration: { returnImmediately: true },
    });
    const v03 = invocationParams('0.3', 'get_products', {}, { messageId: 'm', returnImmediately: true });
    assert.deepEqual(v03, {
      message: {
        kind: 'message',
        messageId: 'm',
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'get_products', input: {} } }],
      },
      configuration: { blocking: false },
    });
  });
});

describe('a2aMethodRoute', () => {
  it('names the wire and operation of every method, and nothing else', () => {
    for (const wire of WIRES) {
      for (const [operation, method] of Object.entries(A2A_METHODS[wire])) {
        assert.deepEqual(a2aMethodRoute(method), { wire, operation });
      }
    }
    for (const other of ['constructor', '__proto__', 'toString', 'tasks/list', 'sendMessage'])
      assert.equal(a2aMethodRoute(other), undefined, other);
  });
});
