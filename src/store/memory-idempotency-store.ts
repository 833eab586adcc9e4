import { randomUUID } from 'node:crypto';
import {
  DEFAULT_EXPIRED_KEPT_MS,
  type IdempotencyClaim,
  type IdempotencyClaimOptions,
  type IdempotencyCompleteOptions,
  type IdempotencyReclaimOptions,
  type IdempotencyStore,
} from './idempotency-store.js';

interface Entry {
  payloadHash: string;
  token: string;
  /** In flight while `response` is undefined. */
  response: unknown;
  leaseExpiresAt: number;
  expiresAt: number;
}

/**
 * True when the entry still answers for its key: in flight with a live lease, or done and not yet
 * forgotten (replayed inside its window, `expired` for `keptMs` after it).
 */
function isLive(entry: Entry, now: number, keptMs: number): boolean {
  return entry.response === undefined ? entry.leaseExpiresAt > now : entry.expiresAt + keptMs > now;
}

/**
 * An in-process `IdempotencyStore` (tests, one short-lived process): the declared replay window
 * must not outlive the process (security.md, rule 6), so a real seller uses SQLite or PostgreSQL.
 * `claim` reads and writes without awaiting in between, which is atomic in one event loop.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #scopes = new Map<string, Map<string, Entry>>();

  #entryOf(scope: string, key: string): Entry | undefined {
    return this.#scopes.get(scope)?.get(key);
  }

  async claim(scope: string, key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim> {
    const now = options.now ?? Date.now();
    const entry = this.#entryOf(scope, key);
    if (entry !== undefined && isLive(entry, now, options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS)) {
      if (entry.response !== undefined && entry.expiresAt <= now) return { kind: 'expired' };
      if (entry.payloadHash !== options.payloadHash) return { kind: 'conflict' };
      if (entry.response === undefined) return { kind: 'in_flight', leaseExpiresAt: entry.leaseExpiresAt };
      return { kind: 'replay', response: structuredClone(entry.response), token: entry.token };
    }
    const token = randomUUID();
    let keys = this.#scopes.get(scope);
    if (keys === undefined) this.#scopes.set(scope, (keys = new Map()));
    keys.set(key, {
      payloadHash: options.payloadHash,
      token,
      response: undefined,
      leaseExpiresAt: now + options.leaseMs,
      expiresAt: 0,
    });
    return { kind: 'claimed', token };
  }

  async complete(scope: string, key: string, token: string, options: IdempotencyCompleteOptions): Promise<boolean> {
    const entry = this.#entryOf(scope, key);
    if (entry === undefined || entry.token !== token || entry.response !== undefined) return false;
    if (options.response === undefined) throw new TypeError('idempotency store: a response is required');
    entry.response = structuredClone(options.response);
    entry.expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    return true;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    const entry = this.#entryOf(scope, key);
    if (entry !== undefined && entry.token === token && entry.response === undefined)
      this.#scopes.get(scope)?.delete(key);
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: IdempotencyReclaimOptions,
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const entry = this.#entryOf(scope, key);
    if (entry === undefined || entry.token !== token || entry.response === undefined) return undefined;
    const now = options.now ?? Date.now();
    entry.token = randomUUID();
    entry.response = undefined;
    entry.leaseExpiresAt = now + options.leaseMs;
    entry.expiresAt = 0;
    return { kind: 'claimed', token: entry.token };
  }

  async sweep(now = Date.now(), options: { expiredForMs?: number } = {}): Promise<number> {
    const keptMs = options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS;
    let removed = 0;
    for (const [scope, keys] of this.#scopes) {
      for (const [key, entry] of keys) {
        if (!isLive(entry, now, keptMs)) {
          keys.delete(key);
          removed += 1;
        }
      }
      if (keys.size === 0) this.#scopes.delete(scope);
    }
    return removed;
  }

  async close(): Promise<void> {
    this.#scopes.clear();
  }
}
