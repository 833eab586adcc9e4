import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs } from './backoff.js';

describe('backoffMs', () => {
  const policy = { initialDelayMs: 100, maxDelayMs: 500 };

  it('doubles the step up to the ceiling, the wait between half the step and the step', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 1)),
      [100, 200, 400, 500, 500],
    );
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffMs(n, policy, () => 0)),
      [50, 100, 200, 250, 250],
    );
  });

  it('treats attempt 0 like the first retry', () => {
    assert.equal(
      backoffMs(0, policy, () => 1),
      100,
    );
  });
});
