import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { A2A_METHODS, a2aMethodRoute, invocationParams, parseInvocation, type A2AWire } from './a2a-wire.js';

const WIRES: readonly A2AWire[] = ['1.0', '0.3'];

describe('invocationParams and parseInvocation', () => {
  it('round-trip a skill, its input and the context id on both wires', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WIRES),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })),
        fc.option(fc.string({ minLength: 1, maxLength: 256 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        (wire, skill, input, contextId, advisoryText) => {
          const params = invocationParams(wire, skill, input, {
            messageId: 'm1',
            contextId,
            advisoryText,
          });
          const parsed = parseInvocation(params['message']);
          const expected = contextId === undefined ? { ok: true, skill, input } : { ok: true, skill, input, contextId };
          assert.deepEqual(parsed, expected);
        },
      ),
      { numRuns: 300 },
    );
  });

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

  it('refuses a message without exactly one DataPart, or with a bad skill or input', () => {
    const part = (data: unknown) => ({ parts: [{ kind: 'data', data }] });
    assert.equal(parseInvocation({ parts: [] }).ok, false);
    assert.equal(parseInvocation({ parts: [{ data: { skill: 'a' } }, { data: { skill: 'b' } }] }).ok, false);
    assert.equal(parseInvocation(part({ skill: '' })).ok, false);
    assert.equal(parseInvocation(part({ skill: 'a', input: [] })).ok, false);
    assert.equal(parseInvocation(part({ parameters: {}, skill: 7 })).ok, false);
    assert.equal(parseInvocation(null).ok, false);
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
