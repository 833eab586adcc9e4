import { retryDelaySeconds } from './recovery.js';

/**
 * Seconds from an HTTP `Retry-After` header (RFC 9110 section 10.2.3: delay-seconds or an
 * HTTP-date), rounded up and clamped to 1..3600 like `retry_after`; `undefined` when absent or
 * unreadable. A date in the past gives the 1 s floor.
 */
export function retryAfterHeaderSeconds(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return retryDelaySeconds({ retry_after: Number(text) }) ?? undefined;
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
  return retryDelaySeconds({ retry_after: (at - now) / 1000 }) ?? undefined;
}
