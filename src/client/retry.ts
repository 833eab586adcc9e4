import type { TaskResult } from '../core/task-result.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { Clock, RetryOptions } from './client-options.js';

export const DEFAULT_RETRY = {
  maxAttempts: 3,
  maxTotalSeconds: 300,
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
} as const;

/** One attempt's outcome as the retry loop sees it. */
type Attempt = { ok: true; result: TaskResult } | { ok: false; error: unknown };

/**
 * Runs `attempt` until it gives an answer that is not worth retrying, within the ceilings
 * (transport-errors.md, "Recovery Behavior" and "Retry ceiling"):
 * - a `failed` result whose action is `retry` (transient) waits `retryDelaySeconds`, or an
 *   exponential backoff with jitter when the agent gave no `retry_after`;
 * - a retryable `AdcpWireError` (HTTP 429/502/503/504) or any connection failure (`network`)
 *   waits the backoff: every call is read-only or carries its `idempotency_key`, so resending
 *   after a dropped connection is safe even when the request may have reached the agent; every
 *   other error is thrown at once;
 * - correctable and terminal results come back at once.
 * A wait that would pass `maxTotalSeconds` is not taken: the last answer is returned (or thrown).
 */
export async function withRetry(
  attempt: (attemptNumber: number) => Promise<TaskResult>,
  retry: RetryOptions | false,
  clock: Clock,
  signal?: AbortSignal,
): Promise<TaskResult> {
  const policy = retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...retry };
  if (!(policy.maxAttempts >= 1)) throw new RangeError('retry.maxAttempts must be at least 1');
  const started = clock.now();
  for (let n = 1; ; n++) {
    const outcome: Attempt = await attempt(n).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const delay = n < policy.maxAttempts ? retryDelayMs(outcome, n, policy, clock) : null;
    const elapsed = clock.now() - started;
    if (delay === null || elapsed + delay > policy.maxTotalSeconds * 1000) {
      if (outcome.ok) return outcome.result;
      throw outcome.error;
    }
    await clock.sleep(delay, signal);
  }
}

/** How long to wait before the next attempt, or `null` when this outcome is final. */
function retryDelayMs(outcome: Attempt, n: number, policy: Required<RetryOptions>, clock: Clock): number | null {
  if (outcome.ok) {
    const result = outcome.result;
    if (result.status !== 'failed' || result.error.action !== 'retry') return null;
    const seconds = result.error.retryDelaySeconds;
    return seconds === null ? backoffMs(n, policy, clock) : seconds * 1000;
  }
  const error = outcome.error;
  if (error instanceof AdcpWireError && (error.retryable || error.code === 'network'))
    return backoffMs(n, policy, clock);
  return null;
}

/** Exponential backoff with jitter: half the doubled delay fixed, half random. */
export function backoffMs(
  n: number,
  policy: { initialDelayMs: number; maxDelayMs: number },
  clock: Pick<Clock, 'random'>,
): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (n - 1));
  return Math.round(base / 2 + (base / 2) * clock.random());
}
