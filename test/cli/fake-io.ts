import type { CliIo } from '../../src/cli/io.js';

/** An injected CliIo that records what a command writes. */
export interface RecordingIo extends CliIo {
  out(): string;
  err(): string;
}

export function recordingIo(options: { tty?: boolean; env?: Record<string, string>; cwd?: string } = {}): RecordingIo {
  let out = '';
  let err = '';
  const tty = options.tty === true;
  return {
    stdout: { write: (chunk: string) => (out += chunk), isTTY: tty },
    stderr: { write: (chunk: string) => (err += chunk), isTTY: tty },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: () => out,
    err: () => err,
  };
}
