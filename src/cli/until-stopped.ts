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

/**
 * While a command is stopping after a first SIGINT/SIGTERM, a second one ends the process at once
 * (exit 130). No-op under `io.signal` (tests). `release()` removes the handlers.
 */
export function exitOnSecondSignal(io: CliIo): { release(): void } {
  if (io.signal !== undefined) return { release: () => undefined };
  const now = () => {
    io.stderr.write('interrupted again: exiting without waiting.\n');
    process.exit(130);
  };
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  return {
    release() {
      process.off('SIGINT', now);
      process.off('SIGTERM', now);
    },
  };
}

/**
 * For a command that finishes on its own but starts things (the demo): a signal aborted by
 * `io.signal` (tests) or by the first SIGINT/SIGTERM of the real process, so the command can
 * stop what it started before it exits. `release()` removes the process handlers.
 */
export function interruptSignal(io: CliIo): { signal: AbortSignal; release(): void } {
  if (io.signal !== undefined) return { signal: io.signal, release: () => undefined };
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
