/** Where a command writes, injectable so commands are tested in-process. */
export interface CliIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Working directory for relative paths (`@file` arguments, `--vectors DIR`). */
  cwd: string;
  /**
   * Stops a long-running command (`serve`, `webhooks listen`) when aborted. Absent for the real
   * process, where SIGINT/SIGTERM stop them (see until-stopped.ts).
   */
  signal?: AbortSignal;
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** A command: parses its own argv (after the command name) and returns the exit code. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** Documented exit codes, shared by every command. */
export const EXIT = {
  ok: 0,
  /** The agent answered with a failure, or a conformance vector failed. */
  failed: 1,
  /** The command line was wrong: see --help. */
  usage: 2,
  /** Could not reach or read the agent (network, timeout, protocol). */
  unreachable: 3,
  /** `--wait` ran out of time (or was interrupted) before the task reached a final status. */
  pending: 4,
  /** Interrupted (Ctrl-C) after stopping what the command had started. */
  interrupted: 130,
} as const;
