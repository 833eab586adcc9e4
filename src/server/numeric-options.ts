/**
 * Checks of createAdcpServer's numeric options, made before anything starts. A value the server
 * cannot honour is a RangeError naming the option: NaN would lift a cap (`size > NaN` is never
 * true), 0 would spin an interval, and a delay past 2^31 - 1 ms fires after 1 ms in Node.
 */

/** The longest delay Node's timers honour. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A positive number of milliseconds, at most `max` (a timer's limit by default). */
export function positiveMs(name: string, value: number | undefined, fallback: number, max = MAX_TIMER_MS): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > max) {
    throw new RangeError(`createAdcpServer: ${name} must be a positive number of milliseconds, at most ${max}`);
  }
  return ms;
}

/** A number of milliseconds, 0 or more, at most a timer's limit. */
export function nonNegativeMs(name: string, value: number | undefined, fallback: number): number {
  const ms = value ?? fallback;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_TIMER_MS) {
    throw new RangeError(
      `createAdcpServer: ${name} must be a number of milliseconds, 0 or more, at most ${MAX_TIMER_MS}`,
    );
  }
  return ms;
}

/** A positive whole number (a count or a size). */
export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`createAdcpServer: ${name} must be a positive integer`);
  }
  return n;
}
