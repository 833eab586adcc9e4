import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normalizeTaskState, TASK_STATUSES } from '../../src/index.js';
import { jsonSizeExceeds } from '../../src/core/json-size.js';
import { utf8LengthExceeds } from '../../src/core/utf8-limit.js';
import { jsonArb } from './arbitraries.js';

const encoder = new TextEncoder();

describe('extraction helpers (property)', () => {
  it('normalizeTaskState agrees with prefix strip + ASCII-only lowercasing + exact match', () => {
    const pieces = fc.constantFrom(
      'TASK_STATE_',
      'INPUT',
      '_',
      '-',
      'REQUIRED',
      'completed',
      'WORKING',
      '\u0130',
      '\u212A',
      ' ',
      'ed',
    );
    const states = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.array(pieces, { maxLength: 5 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(states, (s) => {
        const ref = s
          .replace(/^TASK_STATE_/, '')
          .replace(/[A-Z]/g, (c) => c.toLowerCase())
          .replace(/_/g, '-');
        const expected = (TASK_STATUSES as readonly string[]).includes(ref) ? ref : null;
        assert.equal(normalizeTaskState(s), expected);
      }),
      { numRuns: 10_000 },
    );
  });

  it('utf8LengthExceeds agrees with TextEncoder at and around the exact size', () => {
    const unit = fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udc00', '\u0000', 'Z');
    const texts = fc
      .tuple(fc.array(unit, { maxLength: 60 }), fc.nat({ max: 40_000 }))
      .map(([u, pad]) => 'x'.repeat(pad) + u.join(''));
    fc.assert(
      fc.property(texts, fc.integer({ min: -3, max: 3 }), (text, delta) => {
        const bytes = encoder.encode(text).length;
        const limit = Math.max(0, bytes + delta);
        assert.equal(utf8LengthExceeds(text, limit), bytes > limit);
      }),
      { numRuns: 2_000 },
    );
  });

  it('jsonSizeExceeds agrees with the UTF-8 size of JSON.stringify', () => {
    fc.assert(
      fc.property(jsonArb, fc.integer({ min: -2, max: 2 }), (value, delta) => {
        const bytes = encoder.encode(JSON.stringify(value)).length;
        const limit = Math.max(0, bytes + delta);
        assert.equal(jsonSizeExceeds(value, limit), bytes > limit);
      }),
      { numRuns: 10_000 },
    );
  });
});
