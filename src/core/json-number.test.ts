import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findInexactInteger, MAX_EXACT_INTEGER } from './json-number.js';

describe('findInexactInteger (a2a-profile-extension.md, "JSON number interoperability")', () => {
  it('accepts integers within ±(2^53−1), fractions and non-numbers', () => {
    assert.equal(
      findInexactInteger({ a: MAX_EXACT_INTEGER, b: -MAX_EXACT_INTEGER, c: 3.5, d: '12345678901234567890' }),
      undefined,
    );
    assert.equal(findInexactInteger([0, -0, 1e15, null, true, 'x']), undefined);
  });
  it('points at the first integer-valued number outside the range, at any depth', () => {
    assert.equal(findInexactInteger({ budget: MAX_EXACT_INTEGER + 1 }), '/budget');
    assert.equal(findInexactInteger({ packages: [{ budget: 5 }, { budget: -1e20 }] }), '/packages/1/budget');
    assert.equal(findInexactInteger({ 'a/b': { '~': 1e308 } }), '/a~1b/~0');
    assert.equal(findInexactInteger(JSON.parse('{"id":12345678901234567890}')), '/id');
    assert.equal(findInexactInteger(2 ** 53), '/');
  });
  it('3 and 3.0 decode to the same value', () => {
    assert.deepEqual(JSON.parse('{"n":3}'), JSON.parse('{"n":3.0}'));
  });
});
