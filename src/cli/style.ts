import type { CliIo } from './io.js';

/** ANSI styles the CLI uses; each is the identity when colour is off. */
export interface Style {
  readonly color: boolean;
  // Function properties, not methods: callers pass them around unbound (`headerStyle: style.dim`).
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

const wrap = (on: boolean, open: number, close: number) => (text: string) =>
  on ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** Colour only on a terminal, and never when `NO_COLOR` is set to anything non-empty. */
export function wantsColor(io: CliIo, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  const noColor = io.env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  return io[stream].isTTY === true && io.env['TERM'] !== 'dumb';
}

export function createStyle(color: boolean): Style {
  return {
    color,
    bold: wrap(color, 1, 22),
    dim: wrap(color, 2, 22),
    red: wrap(color, 31, 39),
    green: wrap(color, 32, 39),
    yellow: wrap(color, 33, 39),
    cyan: wrap(color, 36, 39),
  };
}

/** The colour a status reads in: green when done, red when it went wrong, yellow while pending. */
export function paintStatus(style: Style, status: string): string {
  if (status === 'completed' || status === 'ok' || status === 'pass') return style.green(status);
  if (status === 'failed' || status === 'rejected' || status === 'canceled' || status === 'FAIL')
    return style.red(status);
  return style.yellow(status);
}
