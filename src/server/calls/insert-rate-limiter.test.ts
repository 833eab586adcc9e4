import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createInsertRateLimiter, DEFAULT_INSERT_LIMITS } from './insert-rate-limiter.js';

const T0 = 1_700_000_000_000;

describe('createInsertRateLimiter', () => {
  it('admits a write burst of 300/s over 10 s, then refuses with retry_after, counting nothing refused', () => {
    const limiter = createInsertRateLimiter();
    let admitted = 0;
    let refused = 0;
    let retryAfter = 0;
    // 10,000 distinct keys within one second from one principal.
    for (let i = 0; i < 10_000; i += 1) {
      const decision = limiter.take('p', 'write', T0 + i / 10);
      if (decision.ok) {
        admitted += 1;
      } else {
        refused += 1;
        retryAfter = decision.retryAfter;
      }
    }
    assert.equal(admitted, 3000);
    assert.equal(refused, 7000);
    assert.ok(retryAfter >= 1 && retryAfter <= 10, String(retryAfter));
    // Once the burst window has rolled past, writes are admitted again.
    assert.equal(limiter.take('p', 'write', T0 + 11_000).ok, true);
  });

  it('keeps reads and writes apart, and principals apart', () => {
    const limiter = createInsertRateLimiter();
    for (let i = 0; i < 3000; i += 1) limiter.take('p', 'write', T0);
    assert.equal(limiter.take('p', 'write', T0).ok, false);
    assert.equal(limiter.take('p', 'read', T0).ok, true, 'the read budget is its own');
    assert.equal(limiter.take('q', 'write', T0).ok, true, 'another principal has its own');
  });

  it('holds the sustained rate over 60 s', () => {
    const limiter = createInsertRateLimiter();
    let admitted = 0;
    for (let second = 0; second < 60; second += 1) {
      for (let i = 0; i < 100; i += 1) if (limiter.take('p', 'write', T0 + second * 1000).ok) admitted += 1;
    }
    assert.equal(admitted, DEFAULT_INSERT_LIMITS.writes.sustained * 60);
  });

  it('refuses limits that cannot work', () => {
    assert.throws(
      () => createInsertRateLimiter({ ...DEFAULT_INSERT_LIMITS, writes: { sustained: 0, burst: 0 } }),
      RangeError,
    );
  });
});
