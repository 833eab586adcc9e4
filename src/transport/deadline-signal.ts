import { AdcpWireError } from '../core/wire-error.js';
import { setLongTimeout } from './long-timer.js';

/**
 * A signal that aborts when `parent` does (with its reason) or after `timeoutMs` (with
 * `AdcpWireError('timeout')` naming `what`), and a `dispose` that clears the timer and the
 * listener. Call `dispose` when the work ends, so a long-lived parent collects no listeners.
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
