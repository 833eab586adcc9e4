import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { digestOf, hexDigestOf } from './one-shot-digest.js';

describe('digestOf', () => {
  it('equals createHash for text (as UTF-8) and bytes, SHA-256 and SHA-512', () => {
    for (const algorithm of ['sha256', 'sha512']) {
      for (const data of ['', '{"brief":"café ☕"}', new Uint8Array([0, 1, 2, 255])]) {
        assert.deepEqual(digestOf(algorithm, data), createHash(algorithm).update(data).digest());
      }
    }
  });
});

describe('hexDigestOf', () => {
  it('equals createHash as lowercase hex for text (as UTF-8) and bytes, SHA-256 and SHA-512', () => {
    for (const algorithm of ['sha256', 'sha512']) {
      for (const data of ['', '{"brief":"café ☕"}', new Uint8Array([0, 1, 2, 255])]) {
        assert.equal(hexDigestOf(algorithm, data), createHash(algorithm).update(data).digest('hex'));
      }
    }
  });
});
