import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBase64UrlStrict, isBase64UrlStrict } from './base64.js';

describe('isBase64UrlStrict', () => {
  it('accepts exactly what decodeBase64UrlStrict decodes, and the length tells the byte count', () => {
    const texts = [
      '',
      'A',
      'AA',
      'AAA',
      'AAAA',
      'AAAAA',
      '-_8',
      '+/8',
      'AA==',
      'AA=',
      'a b',
      'é',
      'AAAAAAAAAAAAAAAAAAAAAA',
    ];
    for (let n = 0; n < 40; n += 1) texts.push(Buffer.alloc(n, n).toString('base64url'));
    for (const text of texts) {
      const decoded = decodeBase64UrlStrict(text);
      assert.equal(isBase64UrlStrict(text), decoded !== undefined, text);
      if (decoded !== undefined) assert.equal(decoded.length, Math.floor((text.length * 3) / 4), text);
    }
  });
});
