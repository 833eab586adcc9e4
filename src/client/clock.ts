import type { Clock } from './client-options.js';
import { sleep } from '../transport/sleep.js';

/** The real clock, with any part replaced by `overrides`. */
export function createClock(overrides: Partial<Clock> = {}): Clock {
  return {
    now: overrides.now ?? Date.now,
    sleep: overrides.sleep ?? sleep,
    random: overrides.random ?? Math.random,
  };
}
