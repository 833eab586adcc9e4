import type { JsonObject } from '../core/types.js';
import { AdcpToolError } from '../server/tools/tool-error.js';
import type { ToolContext } from '../server/types.js';

export interface FaultOptions {
  /**
   * At most this many tool calls per principal in any 60 seconds (a rolling window, security.md's
   * window shape); the next is RATE_LIMITED with `retry_after` the seconds until a call leaves the
   * window. Default: no limit.
   */
  callsPerMinute?: number;
  /** Default Date.now. */
  now?: () => number;
}

/** The most principals whose recent calls are remembered; past it the oldest are forgotten. */
const MAX_TRACKED = 10_000;
const WINDOW_MS = 60_000;

/**
 * Failure on demand, for demos and tests, and the seller's rate limit. Either the `x-adcp-fail`
 * request header or a marker in the `brief` asks for a failure:
 * - `RATE_LIMITED` / `[rate-limit]`: every call answers RATE_LIMITED (transient, retry_after 1).
 * - `RATE_LIMITED_ONCE` / `[rate-limit-once]`: the first call per (tool, idempotency_key or brief)
 *   answers RATE_LIMITED; the retry succeeds.
 * - any other upper-case code in the header / `[fail]`: answers that code (SERVICE_UNAVAILABLE
 *   for `[fail]`).
 */
export function createFaultInjector(
  options: FaultOptions = {},
): (tool: string, args: JsonObject, context: Pick<ToolContext, 'headers' | 'principal'>) => void {
  const seen = new Set<string>();
  const limit = options.callsPerMinute;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new RangeError('createFaultInjector: callsPerMinute must be a whole number of at least 1');
  }
  const now = options.now ?? Date.now;
  const calls = new Map<string, number[]>();
  return (tool, args, { headers, principal }) => {
    const header = typeof headers['x-adcp-fail'] === 'string' ? headers['x-adcp-fail'].trim().toUpperCase() : '';
    const brief = typeof args.brief === 'string' ? args.brief : '';
    let ask = header;
    if (ask === '') {
      if (brief.includes('[rate-limit-once]')) ask = 'RATE_LIMITED_ONCE';
      else if (brief.includes('[rate-limit]')) ask = 'RATE_LIMITED';
      else if (brief.includes('[fail]')) ask = 'SERVICE_UNAVAILABLE';
    }
    if (ask === '' || ask === 'HOLD_AFTER_EFFECT') {
      // the latter: start-reference-seller.ts
      if (limit !== undefined) countCall(calls, principal, limit, now());
      return;
    }
    if (ask === 'RATE_LIMITED_ONCE') {
      const key = `${tool}\u0000${typeof args.idempotency_key === 'string' ? args.idempotency_key : brief}`;
      if (seen.has(key)) return;
      if (seen.size > 10_000) seen.clear();
      seen.add(key);
      ask = 'RATE_LIMITED';
    }
    if (ask === 'RATE_LIMITED') {
      throw new AdcpToolError('RATE_LIMITED', 'Request rate exceeded', { recovery: 'transient', retryAfter: 1 });
    }
    if (!/^[A-Z][A-Z0-9_]{1,63}$/.test(ask)) return;
    const transient = ask === 'SERVICE_UNAVAILABLE' || ask === 'CONFLICT';
    throw new AdcpToolError(ask, `Failure injected on request (${ask}).`, {
      recovery: transient ? 'transient' : 'correctable',
    });
  };
}

/** Counts a call in the principal's rolling window, or refuses it with RATE_LIMITED (not counted). */
function countCall(calls: Map<string, number[]>, principal: string, limit: number, at: number): void {
  const recent = (calls.get(principal) ?? []).filter((t) => t > at - WINDOW_MS);
  if (recent.length >= limit) {
    calls.set(principal, recent);
    const retryAfter = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - at) / 1000));
    throw new AdcpToolError('RATE_LIMITED', `More than ${limit} calls in 60 seconds; retry in ${retryAfter} s.`, {
      recovery: 'transient',
      retryAfter,
      details: { limit, remaining: 0, window_seconds: 60, scope: 'account' },
    });
  }
  recent.push(at);
  calls.delete(principal); // re-inserted last: the map's order is least recently seen first
  calls.set(principal, recent);
  if (calls.size > MAX_TRACKED) calls.delete(calls.keys().next().value!);
}
