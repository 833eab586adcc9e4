import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { findDuplicateKey, findDuplicateKeys, fitsUtf8Bytes, parseJsonStrict, utf8ByteLength } from './json.js';

describe('utf8ByteLength', () => {
  it('matches TextEncoder on ASCII, 2-, 3- and 4-byte characters', () => {
    for (const s of ['', 'abc', 'é', '€uro', '😀', 'a😀b€é', '\u0000\u07ff\u0800\uffff']) {
      assert.equal(utf8ByteLength(s), new TextEncoder().encode(s).length, s);
    }
  });
  it('counts a lone surrogate as three bytes, like its U+FFFD replacement', () => {
    assert.equal(utf8ByteLength('\ud800'), 3);
    assert.equal(utf8ByteLength('a\udc00b'), 5);
  });
  it('decides fitsUtf8Bytes by bytes, not UTF-16 units', () => {
    assert.equal(fitsUtf8Bytes('€€', 5), false);
    assert.equal(fitsUtf8Bytes('€€', 6), true);
  });
});

describe('parseJsonStrict', () => {
  it('parses valid JSON', () => {
    assert.deepEqual(parseJsonStrict('{"a":[1,{"b":null}],"c":"x"}'), {
      ok: true,
      value: { a: [1, { b: null }], c: 'x' },
    });
  });
  it('rejects a top-level duplicate key and names it', () => {
    assert.deepEqual(parseJsonStrict('{"a":1,"a":2}'), {
      ok: false,
      reason: 'duplicate_key',
      key: 'a',
      keys: ['a'],
      repeats: 1,
    });
  });
  it('rejects a duplicate key in an object nested three deep', () => {
    const r = parseJsonStrict('{"x":{"y":{"z":{"k":1,"j":2,"k":3}}}}');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'duplicate_key');
  });
  it('rejects a duplicate key in an object inside an array', () => {
    assert.equal(parseJsonStrict('[{"a":1},{"b":1,"b":1}]').ok, false);
  });
  it('sees duplicates written with different escapes', () => {
    const r = parseJsonStrict('{"a":1,"\\u0061":2}');
    assert.equal(!r.ok && r.key, 'a');
  });
  it('accepts the same key in sibling objects and string values equal to keys', () => {
    assert.equal(parseJsonStrict('{"a":{"k":1},"b":{"k":"a"},"c":["a","a"]}').ok, true);
  });
  it('is not fooled by quotes and braces inside strings', () => {
    assert.equal(parseJsonStrict('{"a":"x\\"}{\\"a\\":","b":"\\\\","a2":1}').ok, true);
    assert.equal(parseJsonStrict('{"a\\\\":1,"a\\\\":2}').ok, false);
  });
  it('finds duplicates whatever the whitespace around the colon', () => {
    const r = parseJsonStrict('{ "a" :1,\n  "a"\n:\t2 }');
    assert.equal(!r.ok && r.key, 'a');
    assert.equal(parseJsonStrict('{ "a" : "b\\\\" , "c" : ":" }').ok, true);
  });
  it('is not fooled by colons and key-like text inside string values', () => {
    assert.equal(parseJsonStrict('{"a":"\\":1","b":"{\\"a\\":2}"}').ok, true);
    assert.equal(parseJsonStrict('{"t":"2026-05-26T09:00:44Z","u":"https://x.example:8443/a"}').ok, true);
  });
  it('rejects invalid JSON with invalid_json', () => {
    const r = parseJsonStrict('{"a":');
    assert.equal(!r.ok && r.reason, 'invalid_json');
  });
  it('rejects a text over maxBytes counted in UTF-8 bytes', () => {
    const text = JSON.stringify({ s: '€'.repeat(10) }); // 8 + 30 bytes, 18 units
    assert.deepEqual(parseJsonStrict(text, { maxBytes: 37 }), { ok: false, reason: 'too_large' });
    assert.equal(parseJsonStrict(text, { maxBytes: 38 }).ok, true);
  });
  it('rejects a non-string input', () => {
    assert.deepEqual(parseJsonStrict(42), { ok: false, reason: 'not_a_string' });
  });
  it('keeps __proto__ as an own property without touching any prototype', () => {
    const r = parseJsonStrict('{"__proto__":{"polluted":true},"constructor":{"prototype":{"p":1}}}');
    assert.equal(r.ok, true);
    const value = (r as { value: Record<string, unknown> }).value;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(Object.hasOwn(value, '__proto__'), true);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});

describe('findDuplicateKeys', () => {
  it('lists up to four repeated names in order and counts every repeat', () => {
    const text = '{"a":1,"a":2,"b":[{"c":1,"c":2,"c":3}],"d":1,"d":1,"e":1,"e":1,"f":1,"f":1}';
    assert.deepEqual(findDuplicateKeys(text), { keys: ['a', 'c', 'd', 'e'], repeats: 6 });
  });
});

describe('findDuplicateKey', () => {
  it('returns undefined for scalars and empty containers', () => {
    for (const t of ['1', '"s"', 'null', '{}', '[]', '[[],{}]']) assert.equal(findDuplicateKey(t), undefined);
  });
});
