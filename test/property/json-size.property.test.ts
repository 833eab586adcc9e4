import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jsonSizeExceeds } from '../../src/core/json-size.js';
import { jsonSizeUpperBound } from '../../src/core/json-size.js';
import { jsonArb } from './arbitraries.js';

const encoder = new TextEncoder();
const bytesOf = (v: unknown) => encoder.encode(JSON.stringify(v)).length;

// The longest numbers JSON.stringify writes, control characters (six-byte escapes) and
// non-ASCII text, packed into arrays so that nothing else absorbs an undercount.
const extreme = fc.constantFrom<unknown>(
  -0.0000012345678901234567,
  -2.2250738585072014e-308,
  -1.7976931348623157e308,
  -123456789012345680000,
  '\u0000\u001f',
  '€😀',
  '\ud800',
  true,
  false,
  null,
);
const packed = fc.oneof(fc.array(extreme, { maxLength: 30 }), fc.dictionary(fc.string({ maxLength: 3 }), extreme));
const values = fc.oneof(jsonArb, packed);

describe('jsonSizeExceeds (property)', () => {
  it('the upper bound is never below the UTF-8 size of JSON.stringify', () => {
    fc.assert(
      fc.property(values, (value) => {
        assert.ok(jsonSizeUpperBound(value) >= bytesOf(value));
      }),
      { numRuns: 10_000 },
    );
  });

  it('agrees with the exact size for limits anywhere up to the upper bound', () => {
    fc.assert(
      fc.property(values, fc.double({ min: 0, max: 1, noNaN: true }), (value, at) => {
        const bytes = bytesOf(value);
        const limit = Math.floor(at * (jsonSizeUpperBound(value) + 1));
        assert.equal(jsonSizeExceeds(value, limit), bytes > limit);
      }),
      { numRuns: 10_000 },
    );
  });
});
