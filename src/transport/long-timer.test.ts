import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMER_MS, setLongTimeout } from './long-timer.js';

describe('setLongTimeout', () => {
  it('waits a delay past 2^31-1 ms in chunks and fires once at its end', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      let fired = 0;
      setLongTimeout(() => (fired += 1), MAX_TIMER_MS * 2 + 5);
      mock.timers.tick(MAX_TIMER_MS);
      assert.equal(fired, 0);
      mock.timers.tick(MAX_TIMER_MS);
      assert.equal(fired, 0);
      mock.timers.tick(5);
      assert.equal(fired, 1);
      mock.timers.tick(MAX_TIMER_MS);
      assert.equal(fired, 1);
    } finally {
      mock.timers.reset();
    }
  });

  it('fires a short delay once, and not at all once cleared', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    try {
      let fired = 0;
      setLongTimeout(() => (fired += 1), 10);
      const cleared = setLongTimeout(() => (fired += 100), MAX_TIMER_MS + 1);
      mock.timers.tick(10);
      assert.equal(fired, 1);
      cleared.clear();
      mock.timers.tick(MAX_TIMER_MS * 2);
      assert.equal(fired, 1);
    } finally {
      mock.timers.reset();
    }
  });
});
