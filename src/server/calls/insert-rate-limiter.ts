/** Inserts per second a principal may make into the idempotency store: sustained (60 s) and burst (10 s). */
export interface InsertRate {
  sustained: number;
  burst: number;
}

/**
 * security.md, idempotency rule 8 (cache-growth defense): separate read and write budgets plus a
 * combined cap, per principal. Defaults are the spec's recommended starting points.
 */
export interface InsertLimits {
  writes: InsertRate;
  reads: InsertRate;
  combined: InsertRate;
}

export const DEFAULT_INSERT_LIMITS: InsertLimits = {
  writes: { sustained: 60, burst: 300 },
  reads: { sustained: 300, burst: 1500 },
  combined: { sustained: 350, burst: 1700 },
};

const WINDOW_S = 60;
const BURST_S = 10;
const MAX_PRINCIPALS = 10_000;

interface Counts {
  /** Per-second buckets of the last 60 s, indexed by second modulo 60. */
  reads: Uint32Array;
  writes: Uint32Array;
  /** The second the buckets were last rolled to. */
  second: number;
}

export type InsertDecision = { ok: true } | { ok: false; retryAfter: number };

export interface InsertRateLimiter {
  /** Whether one more insert of `kind` fits `principal`'s budgets, or how many seconds to wait. Counts nothing. */
  check(principal: string, kind: 'read' | 'write', now?: number): InsertDecision;
  /** Counts one insert (a key that became a row). */
  count(principal: string, kind: 'read' | 'write', now?: number): void;
  /** `check`, then `count` when it fits. */
  take(principal: string, kind: 'read' | 'write', now?: number): InsertDecision;
}

/**
 * A rolling-window limiter (60 s sustained, 10 s burst, in one-second buckets) kept in the process:
 * the window shape security.md rule 8 names. A fleet of N processes admits up to N times the rate.
 * Principals idle for a minute are forgotten when more than 10,000 are tracked.
 */
export function createInsertRateLimiter(limits: InsertLimits = DEFAULT_INSERT_LIMITS): InsertRateLimiter {
  for (const rate of [limits.writes, limits.reads, limits.combined]) {
    if (!(rate.sustained > 0 && rate.burst >= rate.sustained)) {
      throw new RangeError('idempotency insert limits: sustained must be positive and burst at least sustained');
    }
  }
  const principals = new Map<string, Counts>();

  const roll = (counts: Counts, second: number) => {
    const steps = Math.min(WINDOW_S, second - counts.second);
    for (let i = 1; i <= steps; i += 1) {
      const slot = (counts.second + i) % WINDOW_S;
      counts.reads[slot] = 0;
      counts.writes[slot] = 0;
    }
    counts.second = Math.max(counts.second, second);
  };

  const prune = (second: number) => {
    for (const [principal, counts] of principals) if (second - counts.second >= WINDOW_S) principals.delete(principal);
  };

  // The window a new insert would overflow (BURST_S, WINDOW_S), or 0 when it fits.
  const over = (burstCount: number, windowCount: number, rate: InsertRate): number => {
    if (burstCount + 1 > rate.burst * BURST_S) return BURST_S;
    if (windowCount + 1 > rate.sustained * WINDOW_S) return WINDOW_S;
    return 0;
  };

  const countsOf = (principal: string, second: number): Counts => {
    let counts = principals.get(principal);
    if (counts === undefined) {
      if (principals.size >= MAX_PRINCIPALS) prune(second);
      counts = { reads: new Uint32Array(WINDOW_S), writes: new Uint32Array(WINDOW_S), second };
      principals.set(principal, counts);
    }
    roll(counts, second);
    return counts;
  };

  const limiter: InsertRateLimiter = {
    check(principal, kind, now = Date.now()) {
      const second = Math.floor(now / 1000);
      const counts = countsOf(principal, second);
      // One pass over the window (this runs on every keyed call): each kind's count over the
      // last BURST_S seconds and over the whole window.
      let readsBurst = 0;
      let writesBurst = 0;
      let reads = 0;
      let writes = 0;
      for (let age = 0; age < WINDOW_S; age += 1) {
        const slot = (second - age + WINDOW_S * 2) % WINDOW_S;
        const r = counts.reads[slot]!;
        const w = counts.writes[slot]!;
        reads += r;
        writes += w;
        if (age < BURST_S) {
          readsBurst += r;
          writesBurst += w;
        }
      }
      const span = Math.max(
        kind === 'write' ? over(writesBurst, writes, limits.writes) : over(readsBurst, reads, limits.reads),
        over(readsBurst + writesBurst, reads + writes, limits.combined),
      );
      // When the oldest counted second of the full window leaves it (a retry may be told to wait again).
      return span > 0 ? { ok: false, retryAfter: 1 + oldestGap(counts, second, span) } : { ok: true };
    },
    count(principal, kind, now = Date.now()) {
      const second = Math.floor(now / 1000);
      const counts = countsOf(principal, second);
      const own = kind === 'write' ? counts.writes : counts.reads;
      own[second % WINDOW_S] = own[second % WINDOW_S]! + 1;
    },
    take(principal, kind, now = Date.now()) {
      const decision = limiter.check(principal, kind, now);
      if (decision.ok) limiter.count(principal, kind, now);
      return decision;
    },
  };
  return limiter;
}

/** Seconds until the oldest non-empty bucket of the last `span` seconds leaves the window. */
function oldestGap(counts: Counts, second: number, span: number): number {
  for (let age = span - 1; age >= 0; age -= 1) {
    const slot = (second - age + WINDOW_S * 2) % WINDOW_S;
    if (counts.reads[slot]! + counts.writes[slot]! > 0) return span - 1 - age;
  }
  return 0;
}
