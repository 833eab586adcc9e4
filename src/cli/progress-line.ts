import { printable } from './args.js';

/** A one-line status that rewrites itself on a terminal and prints only changes elsewhere. */
export interface ProgressLine {
  update(text: string): void;
  /** Clears the live line (on a terminal) so the next output starts on a clean line. */
  done(): void;
}

export function createProgressLine(stream: { write(chunk: string): unknown; isTTY?: boolean }): ProgressLine {
  const tty = stream.isTTY === true;
  let last = '';
  let live = false;
  return {
    update(text) {
      const line = printable(text);
      if (line === last) return;
      last = line;
      if (tty) {
        stream.write(`\r\u001b[2K${line}`);
        live = true;
      } else {
        stream.write(`${line}\n`);
      }
    },
    done() {
      if (tty && live) stream.write('\r\u001b[2K');
      live = false;
      last = '';
    },
  };
}
