import { AdcpWireError } from '../core/wire-error.js';

/**
 * The error a caller sees when its signal fires: the signal's reason when it is already an
 * `AdcpWireError` (a deadline says `timeout`, a closed transport says `aborted`), else a new
 * `aborted` error with the reason as its cause.
 */
export function abortReason(reason: unknown): AdcpWireError {
  if (reason instanceof AdcpWireError) return reason;
  return new AdcpWireError('aborted', 'the call was aborted', { cause: reason });
}
