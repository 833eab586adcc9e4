import { backoffMs } from '../core/backoff.js';
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

/** Told before each wait between attempts (so a person sees why nothing happens for a while). */
export interface RetryNotice {
  /** The attempt about to be made, 2 or more. */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  /** True when the agent asked for the delay (`retry_after`); false for the client's own backoff. */
  agentAsked: boolean;
  /** The error code that made the attempt worth repeating (`RATE_LIMITED`, `http_status`, ...). */
  reason: string;
}

/** What else the loop needs to know: the call's end and who to tell before each wait. */
export interface RetryContext {
  signal?: AbortSignal | undefined;
  /** When the call's own deadline passes, on `clock.now()`: a wait that would reach it is not taken. */
  deadlineAt?: number | undefined;
  onRetry?: ((notice: RetryNotice) => void) | undefined;
}

/**
 * Runs `attempt` until it gives an answer that is not worth retrying, within the ceilings
 * (transport-errors.md, "Recovery Behavior" and "Retry ceiling"):
 * - a `failed` result whose action is `retry` (transient) waits `retryDelaySeconds`, or an
 *   exponential backoff with jitter when the agent gave no `retry_after`;
 * - a retryable `AdcpWireError` (HTTP 429 or 5xx, `isRetryableStatus`, with or without a JSON-RPC error body) or
 *   any connection failure (`network`) waits the answer's `Retry-After`, else the backoff: every call is read-only or carries its `idempotency_key`, so resending
 *   after a dropped connection is safe even when the request may have reached the agent; every
 *   other error is thrown at once;
 * - correctable and terminal results come back at once.
 * A wait that would pass `maxTotalSeconds`, or reach the call's deadline, is not taken: the last
 * answer is returned (or thrown), so an agent's `RATE_LIMITED` with a long `retry_after` reaches the
 * caller with its delay instead of turning into a timeout.
 */
export async function withRetry(
  attempt: (attemptNumber: number) => Promise<TaskResult>,
  retry: RetryOptions | false,
  clock: Clock,
  context: RetryContext = {},
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
    const now = clock.now();
    if (
      delay === null ||
      now - started + delay > policy.maxTotalSeconds * 1000 ||
      (context.deadlineAt !== undefined && now + delay >= context.deadlineAt)
    ) {
      if (outcome.ok) return outcome.result;
      throw outcome.error;
    }
    context.onRetry?.({
      attempt: n + 1,
      maxAttempts: policy.maxAttempts,
      delayMs: delay,
      agentAsked: outcome.ok && outcome.result.status === 'failed' && outcome.result.error.retryDelaySeconds !== null,
      reason: reasonOf(outcome),
    });
    await clock.sleep(delay, context.signal);
  }
}

/** How long to wait before the next attempt, or `null` when this outcome is final. */
function retryDelayMs(outcome: Attempt, n: number, policy: Required<RetryOptions>, clock: Clock): number | null {
  if (outcome.ok) {
    const result = outcome.result;
    if (result.status !== 'failed' || result.error.action !== 'retry') return null;
    const seconds = result.error.retryDelaySeconds;
    return seconds === null ? backoffMs(n, policy, () => clock.random()) : seconds * 1000;
  }
  const error = outcome.error;
  if (error instanceof AdcpWireError && (error.retryable || error.code === 'network'))
    return error.retryAfterSeconds === undefined
      ? backoffMs(n, policy, () => clock.random())
      : error.retryAfterSeconds * 1000;
  return null;
}

function reasonOf(outcome: Attempt): string {
  if (outcome.ok) return outcome.result.status === 'failed' ? outcome.result.error.code : outcome.result.status;
  return outcome.error instanceof AdcpWireError ? outcome.error.code : 'error';
}
