import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatKeyNamesForLog, sanitizeKeyNameForLog } from './log-key-names.js';

describe('sanitizeKeyNameForLog', () => {
  it('keeps a printable name of up to 32 bytes as it is', () => {
    assert.equal(sanitizeKeyNameForLog('signed_authorized_agents'), 'signed_authorized_agents');
  });
  it('replaces a name holding a non-printable code point by <sanitized:N>, N the bytes before it', () => {
    assert.equal(sanitizeKeyNameForLog('status\r\nX-Injected: 1'), '<sanitized:6>');
    assert.equal(sanitizeKeyNameForLog('é\u202eevil'), '<sanitized:2>');
    for (const c of ['\u0000', '\u007f', '\u0085', '\u200b', '\u2028', '\u2066', '\ufeff']) {
      assert.equal(sanitizeKeyNameForLog(`ab${c}`), '<sanitized:2>', JSON.stringify(c));
    }
  });
  it('cuts a long name at 32 bytes without splitting a code point', () => {
    assert.equal(sanitizeKeyNameForLog('x'.repeat(40)), 'x'.repeat(32));
    const cut = sanitizeKeyNameForLog('€'.repeat(20)); // 3 bytes each: 10 fit in 32
    assert.equal(cut, '€'.repeat(10));
  });
});

describe('formatKeyNamesForLog', () => {
  it('shows at most four names, then how many more', () => {
    assert.deepEqual(formatKeyNamesForLog(['a', 'b', 'c', 'd', 'e', 'f']), ['a', 'b', 'c', 'd', '<...2 more>']);
    assert.deepEqual(formatKeyNamesForLog(['a', 'b'], 5), ['a', 'b', '<...3 more>']);
    assert.deepEqual(formatKeyNamesForLog(['a']), ['a']);
  });
});
