import { printable } from './args.js';

/** A one-line status that rewrites itself on a terminal and prints only changes elsewhere. */
export interface ProgressLine {
  update(text: string): void;
  /** Writes `line` (ending in a newline) above the live line, which stays drawn below it. */
  above(line: string): void;
  /** Clears the live line (on a terminal) and stops its clock, so the next output starts clean. */
  done(): void;
}

export interface ProgressLineOptions {
  /** On a terminal, show the seconds since the first update and redraw every second. */
  clock?: boolean;
  now?: () => number;
}

export function createProgressLine(
  stream: { write(chunk: string): unknown; isTTY?: boolean },
  options: ProgressLineOptions = {},
): ProgressLine {
  const tty = stream.isTTY === true;
  const now = options.now ?? Date.now;
  let last = '';
  let live = false;
  let since: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    const elapsed = options.clock === true && since !== undefined ? `  (${Math.floor((now() - since) / 1000)} s)` : '';
    stream.write(`\r\u001b[2K${last}${elapsed}`);
    live = true;
  };
  return {
    update(text) {
      const line = printable(text);
      if (line === last) return;
      last = line;
      since ??= now();
      if (!tty) {
        stream.write(`${line}\n`);
        return;
      }
      draw();
      if (options.clock === true && timer === undefined) {
        timer = setInterval(draw, 1000);
        timer.unref();
      }
    },
    above(line) {
      if (!tty || !live) {
        stream.write(line);
        return;
      }
      stream.write(`\r\u001b[2K${line}`);
      draw();
    },
    done() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (tty && live) stream.write('\r\u001b[2K');
      live = false;
      last = '';
    },
  };
}
