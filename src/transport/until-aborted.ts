import { abortReason } from './abort-reason.js';

/** `promise`, or the abort error as soon as `signal` fires (the work itself goes on for others). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal.reason));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
