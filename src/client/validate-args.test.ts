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
    assert.deepEqual(validateArgs(schema, { brief: 'ctv ads', budget: { total: 5 }, channels: ['ctv'], mode: 'brief', count: 2, note: null }), []);
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
    assert.deepEqual(validateArgs(schema, { brief: 'abc', budget: { total: 1 }, extra: 1 }), ['/extra: not an allowed property']);
  });

  it('reports enum, maxItems, anyOf, integer and string length failures', () => {
    const issues = validateArgs(schema, { brief: 'ab', budget: { total: 1 }, channels: ['radio', 'ctv', 'display'], mode: 'x', count: 1.5 });
    assert.deepEqual(issues, [
      '/brief: shorter than 3',
      '/channels: more than 2 items',
      '/channels/0: not one of the allowed values',
      '/mode: matches none of the anyOf schemas',
      '/count: expected integer, got number',
    ]);
  });

  it('ignores keywords it does not know', () => {
    assert.deepEqual(validateArgs({ type: 'object', properties: { a: { $ref: '#/x', format: 'uri', pattern: '^z' } } }, { a: 'q' }), []);
  });

  it('accepts anything for a schema that is not an object', () => {
    assert.deepEqual(validateArgs(undefined, { a: 1 }), []);
  });
});
