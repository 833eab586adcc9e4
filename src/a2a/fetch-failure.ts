import { AdcpWireError } from '../core/wire-error.js';
import { describe, type WireContext } from './wire-context.js';
import { tlsMismatchNote } from '../transport/tls-mismatch.js';

/**
 * Maps a rejected fetch or body read to the error the caller sees: the signal's own reason when
 * it is an AdcpWireError (the client's deadline says `timeout`), `timeout` for
 * `AbortSignal.timeout`, `aborted` for any other abort, else a retryable `network` error.
 */
export function fetchFailure(error: unknown, signal: AbortSignal | undefined, ctx: WireContext): AdcpWireError {
  if (error instanceof AdcpWireError) return error;
  const where = ctx.tool === undefined ? { url: ctx.url } : { url: ctx.url, tool: ctx.tool };
  if (signal?.aborted === true) {
    const reason: unknown = signal.reason;
    if (reason instanceof AdcpWireError) return reason;
    const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
    return new AdcpWireError(
      timedOut ? 'timeout' : 'aborted',
      `A2A request to ${describe(ctx)} was ${timedOut ? 'timed out' : 'aborted'}`,
      {
        ...where,
        cause: reason ?? error,
      },
    );
  }
  const note = tlsMismatchNote(error, ctx.url);
  return new AdcpWireError('network', `A2A request to ${describe(ctx)} failed: could not connect or read${note}`, {
    ...where,
    cause: error,
    retryable: true,
  });
}
