import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, withRetry } from './retry.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { TaskResult } from '../core/task-result.js';
import type { Clock } from './client-options.js';

function clock(): Clock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    random: () => 1,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

const ok: TaskResult = { status: 'completed', data: {}, protocol: 'mcp', raw: null };

describe('withRetry', () => {
  it('retries a network error and returns the later answer', async () => {
    const c = clock();
    let n = 0;
    const result = await withRetry(
      async () => {
        n += 1;
        if (n === 1) throw new AdcpWireError('network', 'refused', { retryable: true });
        return ok;
      },
      {},
      c,
    );
    assert.equal(result, ok);
    assert.deepEqual(c.sleeps, [1000]);
  });

  it('throws a protocol error at once', async () => {
    const c = clock();
    await assert.rejects(
      withRetry(
        async () => {
          throw new AdcpWireError('protocol', 'bad');
        },
        {},
        c,
      ),
      /bad/,
    );
    assert.deepEqual(c.sleeps, []);
  });

  it('throws the last retryable error once attempts are used up', async () => {
    const c = clock();
    let n = 0;
    await assert.rejects(
      withRetry(
        async () => {
          n += 1;
          throw new AdcpWireError('http_status', `503 #${n}`, { retryable: true });
        },
        { maxAttempts: 2 },
        c,
      ),
      /503 #2/,
    );
  });

  it('refuses maxAttempts below one', async () => {
    await assert.rejects(
      withRetry(async () => ok, { maxAttempts: 0 }, clock()),
      RangeError,
    );
  });
});

describe('backoffMs', () => {
  it('doubles from the initial delay up to the maximum, with half of it random', () => {
    const policy = { initialDelayMs: 1000, maxDelayMs: 5000 };
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffMs(n, policy, { random: () => 1 })),
      [1000, 2000, 4000, 5000],
    );
    assert.deepEqual(
      [1, 2, 3, 4].map((n) => backoffMs(n, policy, { random: () => 0 })),
      [500, 1000, 2000, 2500],
    );
  });
});
