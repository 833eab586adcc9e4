import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateArgs } from './validate-args.js';

const schema = {
  type: 'object',
  required: ['brief', 'budget'],
  additionalProperties: false,
  properties: {
    brief: { type: 'string', minLength: 3, maxLength: 10 },
    budget: { type: 'object', required: ['total'], properties: { total: { type: 'number', minimum: 1 } } },
    channels: { type: 'array', items: { enum: ['ctv', 'display'] }, maxItems: 2 },
    mode: { anyOf: [{ const: 'brief' }, { const: 'wholesale' }] },
    count: { type: 'integer' },
    note: { type: ['string', 'null'] },
  },
};

describe('validateArgs', () => {
  it('accepts arguments that match', () => {
    assert.deepEqual(
      validateArgs(schema, {
        brief: 'ctv ads',
        budget: { total: 5 },
        channels: ['ctv'],
        mode: 'brief',
        count: 2,
        note: null,
      }),
      [],
    );
  });

  it('reports a missing required property with its path', () => {
    assert.deepEqual(validateArgs(schema, { brief: 'abc' }), ['/budget: required']);
  });

  it('reports a wrong type', () => {
    assert.deepEqual(validateArgs(schema, { brief: 5, budget: { total: 1 } }), ['/brief: expected string, got number']);
  });

  it('reports nested bounds', () => {
    assert.deepEqual(validateArgs(schema, { brief: 'abc', budget: { total: 0 } }), ['/budget/total: below 1']);
  });

  it('reports a property the schema closes out', () => {
    assert.deepEqual(validateArgs(schema, { brief: 'abc', budget: { total: 1 }, extra: 1 }), [
      '/extra: not an allowed property',
    ]);
  });

  it('reports enum, maxItems, anyOf, integer and string length failures', () => {
    const issues = validateArgs(schema, {
      brief: 'ab',
      budget: { total: 1 },
      channels: ['radio', 'ctv', 'display'],
      mode: 'x',
      count: 1.5,
    });
    assert.deepEqual(issues, [
      '/brief: shorter than 3',
      '/channels: more than 2 items',
      '/channels/0: not one of the allowed values',
      '/mode: matches none of the anyOf schemas',
      '/count: expected integer, got number',
    ]);
  });

  it('ignores keywords it does not know', () => {
    assert.deepEqual(
      validateArgs({ type: 'object', properties: { a: { $ref: '#/x', format: 'uri', pattern: '^z' } } }, { a: 'q' }),
      [],
    );
  });

  it('accepts anything for a schema that is not an object', () => {
    assert.deepEqual(validateArgs(undefined, { a: 1 }), []);
  });
});

describe('validateArgs on arbitrary input', () => {
  it('never throws and reports at most 20 problems', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (schema, value) => {
        const issues = validateArgs(schema, value);
        assert.ok(Array.isArray(issues) && issues.length <= 20);
      }),
      { numRuns: 300 },
    );
  });

  it('stops at a self-referencing depth without overflowing the stack', () => {
    let schema: Record<string, unknown> = { type: 'object' };
    let value: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) {
      schema = { type: 'object', properties: { a: schema } };
      value = { a: value };
    }
    assert.deepEqual(validateArgs(schema, value), []);
  });
});
