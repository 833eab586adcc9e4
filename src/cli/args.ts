import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT, type CliIo } from './io.js';
import { sanitizeSellerText } from '../core/sanitize.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What one command accepts: its options, how many positionals, and its help text. */
export interface CommandSpec<O extends Options> {
  /** The command as typed, e.g. `call` or `tasks get`. */
  name: string;
  /** The full `--help` text (usage line, description, options, exit codes). */
  help: string;
  options: O;
  /** Names of the positionals, in order; the last ones may be optional (`min`). */
  positionals: readonly string[];
  /** How many positionals are required (defaults to all of them). */
  min?: number;
}

/** Parsed command line: `values` keyed like the spec's options. */
export type Parsed<O extends Options> = {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>['values'];
  positionals: string[];
};

/** A usage error: printed with a hint to run `--help`, exits with EXIT.usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Parses `argv` for one command. Prints `--help` (exit 0) or a usage error (exit 2) itself and
 * returns the exit code in that case, so a command does `if (typeof p === 'number') return p`.
 */
export function parseCommand<O extends Options>(argv: string[], spec: CommandSpec<O>, io: CliIo): Parsed<O> | number {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(spec.help.endsWith('\n') ? spec.help : `${spec.help}\n`);
    return EXIT.ok;
  }
  try {
    const parsed = parseArgs({ args: argv, options: spec.options, allowPositionals: true, strict: true });
    const min = spec.min ?? spec.positionals.length;
    const missing = spec.positionals[parsed.positionals.length];
    if (parsed.positionals.length < min && missing !== undefined) {
      throw new UsageError(`missing <${missing}>.`);
    }
    if (parsed.positionals.length > spec.positionals.length) {
      const extra = parsed.positionals[spec.positionals.length] ?? '';
      throw new UsageError(`unexpected argument '${printable(extra)}'.`);
    }
    return { values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    return usageError(io, spec.name, withSuggestion(error, Object.keys(spec.options)));
  }
}

/** An unknown `--option` error, with the closest option the command has ("did you mean --json?"). */
function withSuggestion(error: unknown, names: string[]): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const typed = error instanceof Error ? /^Unknown option '--([^'=]{1,60})'/.exec(error.message)?.[1] : undefined;
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || typed === undefined) return error;
  const scored = names.map((name) => ({ name, distance: editDistance(typed.toLowerCase(), name) }));
  const best = scored.sort((a, b) => a.distance - b.distance)[0];
  // Close enough to be a slip: a third of the longer name, at least one edit.
  if (best === undefined || best.distance > Math.max(1, Math.floor(Math.max(typed.length, best.name.length) / 3)))
    return error;
  return new UsageError(`unknown option '--${typed}'; did you mean --${best.name}?`);
}

/** Edit distance (insertions, deletions, substitutions, swapped neighbours), for option names only. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Prints a usage error for `adcp <name>` and returns EXIT.usage. */
export function usageError(io: CliIo, name: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`adcp ${name}: ${printable(message)}\nRun 'adcp ${name} --help' for usage.\n`);
  return EXIT.usage;
}

/** Parses a positive number of seconds (`--timeout 30`, `--timeout 2.5`) into milliseconds. */
export function parseSeconds(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--${option} takes a positive number of seconds, not '${printable(value)}'.`);
  }
  return Math.round(seconds * 1000);
}

/** Parses a TCP port (0 picks a free one). */
export function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new UsageError(`--port takes a number from 0 to 65535, not '${printable(value)}'.`);
  }
  return port;
}

/** Text (seller text or echoed user input) made safe for the terminal: core's sanitiser, 200 characters. */
export function printable(text: string, maxLength = 200): string {
  return sanitizeSellerText(text, { maxLength }) ?? '';
}
