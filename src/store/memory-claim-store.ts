import { randomUUID } from 'node:crypto';
import {
  isLive,
  judgeClaim,
  type Claim,
  type ClaimOptions,
  type ClaimPolicy,
  type ClaimRow,
  type ClaimStore,
} from './claim-store.js';

/**
 * An in-process `ClaimStore` (tests, one process that accepts losing its keys on restart). A claim
 * reads and writes without awaiting in between, which is atomic in one event loop.
 */
export class MemoryClaimStore implements ClaimStore {
  readonly #rows = new Map<string, ClaimRow>();
  readonly #policy: ClaimPolicy;

  constructor(policy: ClaimPolicy) {
    this.#policy = policy;
  }

  async claim(scope: string, key: string, options: ClaimOptions): Promise<Claim> {
    const now = options.now ?? Date.now();
    const id = rowId(scope, key);
    const verdict = judgeClaim(
      this.#rows.get(id),
      { now, fingerprint: options.fingerprint, keptMs: options.keptMs ?? 0 },
      this.#policy,
    );
    if (verdict.kind !== 'take') return verdict;
    const token = randomUUID();
    this.#rows.set(id, {
      done: false,
      token,
      fingerprint: verdict.fingerprint,
      leaseExpiresAt: now + options.leaseMs,
      expiresAt: 0,
      result: undefined,
    });
    return { kind: 'claimed', token };
  }

  async complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number; result?: string },
  ): Promise<boolean> {
    const row = this.#rows.get(rowId(scope, key));
    if (row === undefined || row.done || row.token !== token) return false;
    row.done = true;
    row.result = options.result;
    row.expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    return true;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    const id = rowId(scope, key);
    const row = this.#rows.get(id);
    if (row !== undefined && !row.done && row.token === token) this.#rows.delete(id);
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: { leaseMs: number; now?: number },
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const row = this.#rows.get(rowId(scope, key));
    if (row === undefined || !row.done || row.token !== token) return undefined;
    row.done = false;
    row.token = randomUUID();
    row.result = undefined;
    row.leaseExpiresAt = (options.now ?? Date.now()) + options.leaseMs;
    row.expiresAt = 0;
    return { kind: 'claimed', token: row.token };
  }

  async sweep(now: number = Date.now(), options: { keptMs?: number } = {}): Promise<number> {
    let removed = 0;
    for (const [id, row] of this.#rows) {
      if (!isLive(row, now, options.keptMs ?? 0, this.#policy)) {
        this.#rows.delete(id);
        removed += 1;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    this.#rows.clear();
  }
}

function rowId(scope: string, key: string): string {
  return `${scope.length}:${scope}|${key}`;
}
