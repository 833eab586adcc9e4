import type { CliIo } from './io.js';

/**
 * Resolves when a long-running command should stop: when `io.signal` aborts (tests), or on
 * SIGINT/SIGTERM for the real process. Returns the reason, for the goodbye line.
 */
export function untilStopped(io: CliIo): Promise<string> {
  if (io.signal !== undefined) {
    const signal = io.signal;
    if (signal.aborted) return Promise.resolve('stopped');
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true }));
  }
  return new Promise((resolve) => {
    const stop = (name: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(name);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
