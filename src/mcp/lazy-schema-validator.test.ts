import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { lazySchemaValidator } from './lazy-schema-validator.js';

describe('lazySchemaValidator', () => {
  it('builds the SDK validator on the first getValidator, once, and validates as it does', () => {
    let built = 0;
    const lazy = lazySchemaValidator(() => {
      built += 1;
      return new AjvJsonSchemaValidator();
    });
    assert.equal(built, 0);
    const check = lazy.getValidator<{ n: number }>({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
    assert.equal(built, 1);
    assert.deepEqual(check({ n: 1 }), { valid: true, data: { n: 1 }, errorMessage: undefined });
    const refused = check({ n: 'one' });
    assert.equal(refused.valid, false);
    assert.match(refused.errorMessage ?? '', /number/);
    lazy.getValidator({ type: 'string' });
    assert.equal(built, 1);
  });

  it('defaults to the SDK AJV validator', () => {
    const check = lazySchemaValidator().getValidator({ type: 'string', format: 'email' });
    assert.equal(check('a@example.com').valid, true);
    assert.equal(check('not an email').valid, false);
  });
});
