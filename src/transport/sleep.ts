import { abortReason } from './abort-reason.js';
import { setLongTimeout } from './long-timer.js';

/**
 * Resolves after `ms` (any length: past 2^31-1 ms it waits in chunks); rejects with the signal's
 * reason (an `AdcpWireError`, see `abortReason`) when `signal` aborts first.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal.reason));
      return;
    }
    const onAbort = (): void => {
      timer.clear();
      reject(abortReason(signal?.reason));
    };
    const timer = setLongTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
