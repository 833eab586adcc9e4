/** Where a server is in its life, as a load balancer needs to know it. */
export type ReadinessPhase = 'starting' | 'serving' | 'draining';

/** The `/readyz` answer: ready, or why not (a fixed word; never a host, an error or a secret). */
export type ReadinessState =
  { ready: true } | { ready: false; reason: 'starting' | 'stopping' | 'store_unreachable' | 'check_failed' };

export interface ReadinessOptions {
  /** Stores to reach (a `ping` each); a store without `ping` is local and always reachable. */
  stores: readonly object[];
  /** The caller's own check (`createAdcpServer({ health: { check } })`): throw or reject to say "not ready". */
  check?: () => Promise<unknown>;
  /** Longest a round of checks may take before it counts as a failure, ms. */
  timeoutMs: number;
  /** How long a result is reused, ms: probes from many balancers cost one round per interval. */
  cacheMs: number;
  now?: () => number;
}

export interface Readiness {
  readonly phase: ReadinessPhase;
  /** `starting` -> `serving`; ignored once draining. */
  serving(): void;
  /** Readiness goes false for good: the server is stopping. */
  drain(): void;
  /** The current answer: the phase first, then the stores and the caller's check (cached, coalesced). */
  state(): Promise<ReadinessState>;
}

/**
 * Readiness of a server for `/readyz`: false while starting, while a store cannot be reached
 * (each store's `ping`, bounded by `timeoutMs`), when the caller's check fails, and from the
 * moment it starts to drain. Concurrent probes share one round; a result is reused for `cacheMs`.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const now = options.now ?? Date.now;
  const pings = options.stores
    .map((store) => ((store as { ping?: unknown }).ping === undefined ? undefined : store))
    .filter((store): store is { ping(): Promise<void> } => store !== undefined);
  let phase: ReadinessPhase = 'starting';
  let cached: { at: number; state: ReadinessState } | undefined;
  let round: Promise<ReadinessState> | undefined;

  const check = async (): Promise<ReadinessState> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
    });
    try {
      const stores = Promise.all(pings.map((store) => store.ping())).then(
        () => 'ok' as const,
        () => 'store' as const,
      );
      if ((await Promise.race([stores, timedOut])) !== 'ok') return { ready: false, reason: 'store_unreachable' };
      if (options.check === undefined) return { ready: true };
      const own = options.check().then(
        () => 'ok' as const,
        () => 'failed' as const,
      );
      return (await Promise.race([own, timedOut])) === 'ok'
        ? { ready: true }
        : { ready: false, reason: 'check_failed' };
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    get phase() {
      return phase;
    },
    serving() {
      if (phase === 'starting') phase = 'serving';
    },
    drain() {
      phase = 'draining';
    },
    async state() {
      if (phase === 'starting') return { ready: false, reason: 'starting' };
      if (phase === 'draining') return { ready: false, reason: 'stopping' };
      if (cached !== undefined && now() - cached.at < options.cacheMs) return cached.state;
      round ??= check().finally(() => (round = undefined));
      const state = await round;
      cached = { at: now(), state };
      // A drain that began during the round wins over what the round found.
      return (phase as ReadinessPhase) === 'draining' ? { ready: false, reason: 'stopping' } : state;
    },
  };
}
