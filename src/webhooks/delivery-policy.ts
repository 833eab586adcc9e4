import { backoffMs } from '../core/backoff.js';
/** How the emitter treats one HTTP answer (webhooks.md "Reliability"; security.md "Retry semantics"). */
export type AttemptVerdict =
  { kind: 'delivered' } | { kind: 'retry'; retryAfterMs?: number } | { kind: 'stop'; reason: DeliveryFailure };

export type DeliveryFailure =
  'signature_rejected' | 'conflict' | 'rejected' | 'redirect_refused' | 'retries_exhausted' | 'aborted' | 'unsafe_url';

/**
 * 2xx delivered. 401 with `Signature error="webhook_*"`, 409 and other 4xx are final for this
 * event (a retry would fail identically); 408, 425, 429, a bare 401 and 5xx are retried, honouring
 * `Retry-After`. A 3xx is refused: redirects are never followed.
 */
export function classifyResponse(status: number, headers: Headers, nowMs: number): AttemptVerdict {
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status >= 300 && status < 400) return { kind: 'stop', reason: 'redirect_refused' };
  if (status === 401 && /error="?webhook_/.test(headers.get('www-authenticate') ?? ''))
    return { kind: 'stop', reason: 'signature_rejected' };
  if (status === 409) return { kind: 'stop', reason: 'conflict' };
  if (status === 401 || status === 408 || status === 425 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), nowMs);
    return retryAfterMs === undefined ? { kind: 'retry' } : { kind: 'retry', retryAfterMs };
  }
  return { kind: 'stop', reason: 'rejected' };
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from now; `undefined` when absent or invalid. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Exponential backoff with full jitter in [50%, 100%] of the step, at least `retryAfterMs` when the receiver asked. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number,
  retryAfterMs?: number,
): number {
  const jittered = backoffMs(attempt, { initialDelayMs: options.baseDelayMs, maxDelayMs: options.maxDelayMs }, random);
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}
