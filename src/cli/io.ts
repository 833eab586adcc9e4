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
  return {
    stdout: closedPipeSafe(process.stdout),
    stderr: closedPipeSafe(process.stderr),
    env: process.env,
    cwd: process.cwd(),
  };
}

const guarded = new WeakSet<NodeJS.WriteStream>();
const closedPipes = new WeakSet<NodeJS.WriteStream>();

/**
 * The stream, made safe for a reader that goes away (`adcp call ... | head`): a write to a closed
 * pipe fails with EPIPE, which Node reports as an 'error' event that would crash the process. The
 * reader wanted no more: later writes are dropped and the command ends with its own exit code.
 */
function closedPipeSafe(stream: NodeJS.WriteStream): CliIo['stdout'] {
  if (!guarded.has(stream)) {
    guarded.add(stream);
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closedPipes.add(stream);
    });
  }
  return {
    write: (chunk: string) => (closedPipes.has(stream) ? false : stream.write(chunk)),
    get isTTY() {
      return stream.isTTY;
    },
  };
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
