import type { Clock } from '../../../src/client/client-options.js';

/** A clock whose sleeps return at once and move `now` forward; records every sleep. */
export function fakeClock(hook?: (ms: number) => Promise<void> | void): Clock & { sleeps: number[]; time: number } {
  const clock = {
    time: 1_000_000,
    sleeps: [] as number[],
    now: () => clock.time,
    random: () => 0.5,
    async sleep(ms: number, signal?: AbortSignal) {
      if (signal?.aborted === true) throw signal.reason;
      clock.sleeps.push(ms);
      clock.time += ms;
      await hook?.(ms);
    },
  };
  return clock;
}
