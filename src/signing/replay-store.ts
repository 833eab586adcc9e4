/**
 * The `(keyid, nonce)` replay cache of the RFC 9421 webhook verifier (security.md, steps 9a, 12
 * and 13; "Webhook replay dedup sizing"). Async so a shared tier (SQL, Redis) can implement it: a
 * fleet of receivers MUST share one cache, a per-process one suits a single receiver only.
 */
export interface ReplayStore {
  /** Step 9a, before crypto: whether `keyid` has reached its entry cap. */
  isAtCapacity(keyid: string, nowSeconds: number): Promise<boolean> | boolean;
  /**
   * Steps 12 and 13, atomically: `replayed` when `(keyid, nonce)` is live, `rate_abuse` when the
   * insert would pass a cap, else records it until `expiresAtSeconds` and answers `recorded`.
   */
  record(
    keyid: string,
    nonce: string,
    expiresAtSeconds: number,
    nowSeconds: number,
  ): Promise<ReplayOutcome> | ReplayOutcome;
}

export type ReplayOutcome = 'recorded' | 'replayed' | 'rate_abuse';

export interface MemoryReplayStoreOptions {
  /** Entries per keyid before `rate_abuse` (spec recommendation for webhooks: 100,000). */
  perKeyidCap?: number;
  /** Entries across all keyids before `rate_abuse` (default 1,000,000). */
  aggregateCap?: number;
}

/**
 * In-process replay cache with TTL eviction and both caps. Entries are evicted only once expired,
 * never early: a full cache rejects (`rate_abuse`) instead of forgetting, as the spec requires.
 */
export class MemoryReplayStore implements ReplayStore {
  readonly #perKeyidCap: number;
  readonly #aggregateCap: number;
  readonly #byKeyid = new Map<string, Map<string, number>>();
  #size = 0;

  constructor(options: MemoryReplayStoreOptions = {}) {
    this.#perKeyidCap = options.perKeyidCap ?? 100_000;
    this.#aggregateCap = options.aggregateCap ?? 1_000_000;
  }

  /** Live entries per keyid before `rate_abuse` (a shared store taking over keeps the same cap). */
  get perKeyidCap(): number {
    return this.#perKeyidCap;
  }

  /** Live entries across all keyids (after the last eviction). */
  get size(): number {
    return this.#size;
  }

  isAtCapacity(keyid: string, nowSeconds: number): boolean {
    const nonces = this.#byKeyid.get(keyid);
    if (nonces === undefined) return this.#size >= this.#aggregateCap;
    if (nonces.size < this.#perKeyidCap && this.#size < this.#aggregateCap) return false;
    this.#evict(keyid, nonces, nowSeconds, true);
    return nonces.size >= this.#perKeyidCap || this.#size >= this.#aggregateCap;
  }

  record(keyid: string, nonce: string, expiresAtSeconds: number, nowSeconds: number): ReplayOutcome {
    let nonces = this.#byKeyid.get(keyid);
    if (nonces === undefined) {
      nonces = new Map();
      this.#byKeyid.set(keyid, nonces);
    }
    const seen = nonces.get(nonce);
    if (seen !== undefined && seen > nowSeconds) return 'replayed';
    this.#evict(keyid, nonces, nowSeconds, false);
    if (seen !== undefined && nonces.has(nonce)) {
      nonces.delete(nonce);
      this.#size -= 1;
    }
    if (nonces.size >= this.#perKeyidCap || this.#size >= this.#aggregateCap) {
      this.#evict(keyid, nonces, nowSeconds, true);
      if (nonces.size >= this.#perKeyidCap || this.#size >= this.#aggregateCap) return 'rate_abuse';
    }
    nonces.set(nonce, expiresAtSeconds);
    if (nonces.size === 1) this.#byKeyid.set(keyid, nonces); // new, or dropped by eviction once emptied
    this.#size += 1;
    return 'recorded';
  }

  /** Drops expired entries: from the oldest insert while expired, or every entry when `full`. */
  #evict(keyid: string, nonces: Map<string, number>, nowSeconds: number, full: boolean): void {
    for (const [nonce, expiresAt] of nonces) {
      if (expiresAt > nowSeconds) {
        if (!full) break;
        continue;
      }
      nonces.delete(nonce);
      this.#size -= 1;
    }
    if (nonces.size === 0) this.#byKeyid.delete(keyid);
  }
}
