import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterHeaderSeconds } from './retry-after-header.js';

describe('retryAfterHeaderSeconds', () => {
  it('reads delay-seconds, clamped to 1..3600', () => {
    assert.equal(retryAfterHeaderSeconds('7'), 7);
    assert.equal(retryAfterHeaderSeconds(' 0 '), 1);
    assert.equal(retryAfterHeaderSeconds('86400'), 3600);
  });

  it('reads an HTTP-date as the seconds from now, rounded up', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterHeaderSeconds('Thu, 01 Jan 2026 00:00:09 GMT', now), 9);
    assert.equal(retryAfterHeaderSeconds('Wed, 31 Dec 2025 00:00:00 GMT', now), 1);
  });

  it('gives undefined for an absent or unreadable value', () => {
    assert.equal(retryAfterHeaderSeconds(null), undefined);
    assert.equal(retryAfterHeaderSeconds(''), undefined);
    assert.equal(retryAfterHeaderSeconds('-5'), undefined);
    assert.equal(retryAfterHeaderSeconds('1.5'), undefined);
    assert.equal(retryAfterHeaderSeconds('soon'), undefined);
  });
});
