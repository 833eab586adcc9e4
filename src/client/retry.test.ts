import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withRetry } from './retry.js';
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

  it("returns the agent's answer when its retry_after reaches the call's deadline", async () => {
    const c = clock();
    const limited: TaskResult = {
      status: 'failed',
      error: {
        adcpError: { code: 'RATE_LIMITED', message: 'slow down' },
        code: 'RATE_LIMITED',
        recovery: 'transient',
        action: 'retry',
        retryDelaySeconds: 60,
      },
      data: undefined,
      protocol: 'mcp',
      raw: null,
    };
    let n = 0;
    const result = await withRetry(
      async () => {
        n += 1;
        return limited;
      },
      {},
      c,
      { deadlineAt: c.now() + 30_000 },
    );
    assert.equal(result, limited);
    assert.equal(n, 1);
    assert.deepEqual(c.sleeps, []);
  });

  it('tells onRetry the next attempt, the delay and whether the agent asked for it', async () => {
    const c = clock();
    const notices: unknown[] = [];
    let n = 0;
    await withRetry(
      async () => {
        n += 1;
        if (n === 1) throw new AdcpWireError('http_status', '503', { retryable: true });
        return ok;
      },
      { maxAttempts: 3 },
      c,
      { onRetry: (notice) => notices.push(notice) },
    );
    assert.deepEqual(notices, [
      { attempt: 2, maxAttempts: 3, delayMs: 1000, agentAsked: false, reason: 'http_status' },
    ]);
  });

  it('refuses maxAttempts below one', async () => {
    await assert.rejects(
      withRetry(async () => ok, { maxAttempts: 0 }, clock()),
      RangeError,
    );
  });
});
