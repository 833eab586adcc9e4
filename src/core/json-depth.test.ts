import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('jsonDepthExceeds', () => {
  it('accepts exactly the limit and refuses one level more', () => {
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH)), false);
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1)), true);
  });

  it('counts arrays and objects alike', () => {
    assert.equal(jsonDepthExceeds('[[[1]]]', 2), true);
    assert.equal(jsonDepthExceeds('[{"a":[1]}]', 3), false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    assert.equal(jsonDepthExceeds(JSON.stringify({ s: '[[[[[[{{{{' }), 1), false);
    assert.equal(jsonDepthExceeds(JSON.stringify({ s: 'a"[[[[\\"{{' }), 1), false);
  });

  it('measures 100,000 levels without recursion', () => {
    assert.equal(jsonDepthExceeds(nested(100_000)), true);
  });
});
