import { sanitizeSellerText } from '../core/sanitize.js';
import { AdcpWireError } from '../core/wire-error.js';

/** Poll interval when the server gives none, and the bounds put on the one it gives (ms). */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
export const MIN_POLL_INTERVAL_MS = 50;
export const MAX_POLL_INTERVAL_MS = 60_000;

/** The server's `pollInterval`, kept within bounds so a hostile value neither hammers nor stalls. */
export function pollDelay(pollInterval: unknown): number {
  if (typeof pollInterval !== 'number' || !Number.isFinite(pollInterval)) return DEFAULT_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, pollInterval));
}

/**
 * Both eras: the task a `tasks/*` answer describes must be the one asked about. A server that
 * answers for another task (its bug, or a swap) must not settle this call with that task's state
 * or result: a protocol error, at once.
 */
export function checkSameTask(asked: string, answered: unknown, url: string): void {
  if (answered === asked) return;
  const shown = sanitizeSellerText(typeof answered === 'string' ? answered : String(answered), { maxLength: 80 });
  throw new AdcpWireError(
    'protocol',
    `the MCP server at ${url} answered about task ${shown ?? '?'} when asked about ${asked}`,
    {
      url,
    },
  );
}
