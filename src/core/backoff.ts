/**
 * Exponential backoff with jitter, the wait before retry `attempt` (1 = the first retry): the
 * step doubles from `initialDelayMs` up to `maxDelayMs`, and the wait is drawn from the upper
 * half of the step, so retries spread out but never come sooner than half the step.
 * transport-errors.md ("Recovery Behavior"): a transient error without `retry_after` waits an
 * exponential backoff from the client's configured initial delay. `random` is `Math.random` or
 * a test's.
 */
export function backoffMs(
  attempt: number,
  policy: { readonly initialDelayMs: number; readonly maxDelayMs: number },
  random: () => number,
): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}
