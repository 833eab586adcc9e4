import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { utf8ByteLength, utf8ByteLengthPure, utf8LengthExceeds } from './utf8-limit.js';

const encoder = new TextEncoder();
const samples = ['', 'abc', 'é', '€', '😀', 'a\ud800b', '\udc00', '\ud800', 'x€😀é'.repeat(50)];

describe('utf8ByteLength', () => {
  it('matches TextEncoder on ASCII, 2-, 3- and 4-byte characters and lone surrogates', () => {
    for (const s of samples) {
      assert.equal(utf8ByteLength(s), encoder.encode(s).length, JSON.stringify(s));
      assert.equal(utf8ByteLengthPure(s), encoder.encode(s).length, JSON.stringify(s));
    }
  });
});

describe('utf8LengthExceeds', () => {
  it('decides at the exact byte boundary, counting bytes not UTF-16 units', () => {
    const s = '€'.repeat(10); // 10 units, 30 bytes
    assert.equal(utf8LengthExceeds(s, 30), false);
    assert.equal(utf8LengthExceeds(s, 29), true);
  });
  it('is exact for long mixed texts on both sides of the limit', () => {
    const text = 'a'.repeat(70_000) + '€😀é'.repeat(20_000) + 'b'.repeat(50_000);
    const bytes = encoder.encode(text).length;
    assert.equal(utf8LengthExceeds(text, bytes), false);
    assert.equal(utf8LengthExceeds(text, bytes - 1), true);
  });
  it('does not split a surrogate pair at a chunk boundary', () => {
    // Put a pair across the first chunk edge: the over-count of a split pair would say "over".
    for (let pad = 16_380; pad < 16_390; pad++) {
      const text = 'a'.repeat(pad) + '😀'.repeat(30_000);
      const bytes = encoder.encode(text).length;
      assert.equal(utf8LengthExceeds(text, bytes), false, String(pad));
    }
  });
  it('splits after a lone high surrogate that is followed by a real pair', () => {
    for (let pad = 16_380; pad < 16_390; pad++) {
      const text = 'a'.repeat(pad) + '\ud800\ud800\udc00'.repeat(12_000);
      const bytes = encoder.encode(text).length;
      assert.equal(utf8LengthExceeds(text, bytes), false, String(pad));
      assert.equal(utf8LengthExceeds(text, bytes - 1), true, String(pad));
    }
  });
});
