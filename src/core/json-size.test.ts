import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonSizeExceeds } from './json-size.js';

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
