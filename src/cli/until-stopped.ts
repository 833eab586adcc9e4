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
 * (exit 130), and so does stopping for longer than `deadlineMs` (exit 1), when given. No-op under
 * `io.signal` (tests). `release()` removes the handlers and the deadline.
 */
export function exitOnSecondSignal(io: CliIo, deadlineMs?: number): { release(): void } {
  if (io.signal !== undefined) return { release: () => undefined };
  const now = () => {
    io.stderr.write('interrupted again: exiting without waiting.\n');
    process.exit(130);
  };
  process.once('SIGINT', now);
  process.once('SIGTERM', now);
  const deadline =
    deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          io.stderr.write(`still stopping after ${Math.round(deadlineMs / 1000)} s: exiting without waiting.\n`);
          process.exit(1);
        }, deadlineMs);
  deadline?.unref();
  return {
    release() {
      clearTimeout(deadline);
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
