import { AdcpWireError } from '../core/wire-error.js';
import type { Clock } from './client-options.js';
import { setLongTimeout } from './long-timer.js';

/** Resolves after `ms`; rejects with the signal's reason (an AdcpWireError) when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      timer.clear();
      reject(abortReason(signal));
    };
    const timer = setLongTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal | undefined): AdcpWireError {
  const reason: unknown = signal?.reason;
  return reason instanceof AdcpWireError
    ? reason
    : new AdcpWireError('aborted', 'the call was aborted', { cause: reason });
}

/** The real clock, with any part replaced by `overrides`. */
export function createClock(overrides: Partial<Clock> = {}): Clock {
  return {
    now: overrides.now ?? Date.now,
    sleep: overrides.sleep ?? sleep,
    random: overrides.random ?? Math.random,
  };
}

/**
 * A signal that aborts when `parent` does or after `timeoutMs` (with `AdcpWireError('timeout')`),
 * and a `dispose` that clears the timer and the listener.
 */
export function deadlineSignal(
  timeoutMs: number,
  parent: AbortSignal | undefined,
  what: string,
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted === true) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onAbort, { once: true });
  const timer = setLongTimeout(
    () => controller.abort(new AdcpWireError('timeout', `${what} did not finish within ${timeoutMs} ms`)),
    timeoutMs,
  );
  return {
    signal: controller.signal,
    dispose() {
      timer.clear();
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
