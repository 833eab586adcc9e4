import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonSizeExceeds, jsonSizeUpperBound } from './json-size.js';

const bytesOf = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

describe('jsonSizeExceeds', () => {
  it('matches the UTF-8 size of JSON.stringify at the boundary', () => {
    const values = [
      { a: 'x'.repeat(100), b: [1, 2.5, -3e-7, true, null, { c: '€😀' }] },
      { s: '"\\\n\u0001'.repeat(50) },
      ['€'.repeat(300)],
      {},
      [],
    ];
    for (const v of values) {
      const n = bytesOf(v);
      assert.equal(jsonSizeExceeds(v, n), false, JSON.stringify(v).slice(0, 40));
      assert.equal(jsonSizeExceeds(v, n - 1), true, JSON.stringify(v).slice(0, 40));
    }
  });
  it('counts the longest numbers JSON.stringify writes (25 characters)', () => {
    const longest = -0.0000012345678901234567;
    assert.equal(JSON.stringify(longest).length, 25);
    const v = [longest, longest, longest];
    assert.equal(jsonSizeExceeds(v, bytesOf(v) - 1), true);
    assert.equal(jsonSizeExceeds(v, bytesOf(v)), false);
    assert.ok(jsonSizeUpperBound(v) >= bytesOf(v));
  });
  it('answers from the upper bound alone far under the limit, exactly near it', () => {
    const v = { products: [{ id: 'p1', name: 'Zürich — CTV', rate: 12.5, live: true, note: null }] };
    const n = bytesOf(v);
    assert.ok(jsonSizeUpperBound(v) >= n);
    assert.ok(jsonSizeUpperBound(v) <= 6 * n + 100);
    for (const limit of [n - 1, n, n + 1, jsonSizeUpperBound(v) - 1, jsonSizeUpperBound(v), 1024 * 1024]) {
      assert.equal(jsonSizeExceeds(v, limit), n > limit, `limit ${limit}`);
    }
  });
  it('stops the upper-bound walk at the cap', () => {
    assert.equal(jsonSizeUpperBound({ a: 'x'.repeat(100) }, 50), Infinity);
    assert.equal(jsonSizeUpperBound([1n]), Infinity);
    assert.equal(jsonSizeUpperBound(undefined), 0);
  });
  it('skips undefined members the way JSON.stringify does', () => {
    const v = { a: 1, b: undefined };
    assert.equal(jsonSizeExceeds(v, bytesOf(v)), false);
  });
  it('stops early on a cycle instead of looping', () => {
    const v: Record<string, unknown> = { a: 1 };
    v['self'] = v;
    assert.equal(jsonSizeExceeds(v, 10_000), true);
  });
  it('handles very deep nesting without recursion', () => {
    let v: unknown = {};
    for (let i = 0; i < 100_000; i++) v = [v];
    assert.equal(jsonSizeExceeds(v, 1_000), true);
  });
});
