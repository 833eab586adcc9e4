import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { invocationParams, type A2AWire } from './a2a-wire.js';
import { buildInvocationMessage, parseProfileInvocation } from './a2a-profile-invocation.js';

const WIRES: readonly A2AWire[] = ['1.0', '0.3'];
const id = fc.string({ minLength: 1, maxLength: 256 });

describe('invocationParams and parseProfileInvocation', () => {
  it('round-trip a skill, its input and the message, context and task ids on both wires', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WIRES),
        id,
        fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 })),
        id,
        fc.option(id, { nil: undefined }),
        fc.option(id, { nil: undefined }),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        (wire, skill, input, messageId, contextId, taskId, advisoryText) => {
          const params = invocationParams(wire, skill, input, { messageId, contextId, taskId, advisoryText });
          const parsed = parseProfileInvocation(params['message']);
          const expected: Record<string, unknown> = { ok: true, skill, input, messageId, inputMember: 'input' };
          if (contextId !== undefined) expected['contextId'] = contextId;
          if (taskId !== undefined) expected['taskId'] = taskId;
          assert.deepEqual(parsed, expected);
          const built = buildInvocationMessage(skill, input, { wire, messageId, contextId, taskId, advisoryText });
          assert.deepEqual(built, params['message']);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a message without exactly one DataPart, or with a bad skill or input, naming the rule', () => {
    const part = (data: unknown) => ({ messageId: 'm', parts: [{ kind: 'data', data }] });
    const cases: [unknown, string][] = [
      [null, 'invalid_a2a_message'],
      [{ parts: [{ data: { skill: 'a', input: {} } }] }, 'invalid_a2a_message'],
      [{ messageId: 'm', parts: [] }, 'invalid_a2a_message'],
      [{ messageId: 'm', parts: [{ text: 'buy' }] }, 'missing_invocation_data_part'],
      [
        { messageId: 'm', parts: [{ data: { skill: 'a', input: {} } }, { data: { skill: 'b', input: {} } }] },
        'multiple_invocation_dataparts',
      ],
      [{ messageId: 'm', parts: [{ url: 'https://example.com/f' }] }, 'unsupported_part_type'],
      [part({ skill: '', input: {} }), 'invalid_invocation_shape'],
      [part({ skill: 'a', input: [] }), 'invalid_invocation_shape'],
      [part({ skill: 'a' }), 'invalid_invocation_shape'],
      [part({ skill: 'a', input: {}, extra: 1 }), 'invalid_invocation_shape'],
      [part({ skill: 'a', parameters: {} }), 'invalid_invocation_shape'],
      [part({ parameters: {}, skill: 7 }), 'invalid_invocation_shape'],
    ];
    for (const [message, code] of cases) {
      const parsed = parseProfileInvocation(message);
      assert.equal(parsed.ok, false, JSON.stringify(message));
      if (!parsed.ok) assert.equal(parsed.code, code, JSON.stringify(message));
    }
  });

  it('reads the legacy { skill, parameters } shape only in legacy mode, and never both members', () => {
    const message = (data: unknown) => ({ kind: 'message', messageId: 'm', parts: [{ kind: 'data', data }] });
    assert.deepEqual(
      parseProfileInvocation(message({ skill: 'a', parameters: { x: 1 } }), { legacyParameters: true }),
      {
        ok: true,
        skill: 'a',
        input: { x: 1 },
        messageId: 'm',
        inputMember: 'parameters',
      },
    );
    const both = parseProfileInvocation(message({ skill: 'a', input: {}, parameters: {} }), { legacyParameters: true });
    assert.equal(both.ok, false);
    const neither = parseProfileInvocation(message({ skill: 'a' }), { legacyParameters: true });
    assert.equal(neither.ok, false);
  });
});
