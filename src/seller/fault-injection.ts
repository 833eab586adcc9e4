import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../core/types.js';
import { AdcpToolError } from '../server/tools/tool-error.js';

/**
 * Failure on demand, for demos and tests. Either the `x-adcp-fail` request header or a marker in
 * the `brief` asks for it:
 * - `RATE_LIMITED` / `[rate-limit]`: every call answers RATE_LIMITED (transient, retry_after 1).
 * - `RATE_LIMITED_ONCE` / `[rate-limit-once]`: the first call per (tool, idempotency_key or brief)
 *   answers RATE_LIMITED; the retry succeeds.
 * - any other upper-case code in the header / `[fail]`: answers that code (SERVICE_UNAVAILABLE
 *   for `[fail]`).
 */
export function createFaultInjector(): (tool: string, args: JsonObject, headers: IncomingMessage['headers']) => void {
  const seen = new Set<string>();
  return (tool, args, headers) => {
    const header = typeof headers['x-adcp-fail'] === 'string' ? headers['x-adcp-fail'].trim().toUpperCase() : '';
    const brief = typeof args.brief === 'string' ? args.brief : '';
    let ask = header;
    if (ask === '') {
      if (brief.includes('[rate-limit-once]')) ask = 'RATE_LIMITED_ONCE';
      else if (brief.includes('[rate-limit]')) ask = 'RATE_LIMITED';
      else if (brief.includes('[fail]')) ask = 'SERVICE_UNAVAILABLE';
    }
    if (ask === '' || ask === 'HOLD_AFTER_EFFECT') return; // the latter: start-reference-seller.ts
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
