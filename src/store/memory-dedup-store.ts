import { randomUUID } from 'node:crypto';
import type { ClaimOutcome, DedupStore } from './types.js';

interface Row {
  state: 'processing' | 'done';
  token: string;
  leaseExpiresAt: number;
  expiresAt: number;
  fingerprint: string | undefined;
}

/**
 * An in-process `DedupStore` for tests and single-process buyers that accept losing dedup state
 * on restart. Same semantics as the SQLite and PostgreSQL stores (see `test/store/dedup-contract.ts`).
 */
export class MemoryDedupStore implements DedupStore {
  readonly #rows = new Map<string, Row>();

  async claim(
    scope: string,
    key: string,
    options: { leaseMs: number; now?: number; fingerprint?: string },
  ): Promise<ClaimOutcome> {
    const now = options.now ?? Date.now();
    const id = rowId(scope, key);
    const row = this.#rows.get(id);
    let fingerprint = options.fingerprint;
    if (row !== undefined && !(row.state === 'done' && row.expiresAt <= now)) {
      if (row.fingerprint !== undefined && fingerprint !== undefined && row.fingerprint !== fingerprint) {
        return { kind: 'conflict' };
      }
      if (row.state === 'done') return { kind: 'done' };
      if (row.leaseExpiresAt > now) return { kind: 'busy', leaseExpiresAt: row.leaseExpiresAt };
      fingerprint = row.fingerprint ?? fingerprint;
    }
    const token = randomUUID();
    this.#rows.set(id, {
      state: 'processing',
      token,
      leaseExpiresAt: now + options.leaseMs,
      expiresAt: 0,
      fingerprint,
    });
    return { kind: 'claimed', token };
  }

  async complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number },
  ): Promise<boolean> {
    const row = this.#rows.get(rowId(scope, key));
    if (row === undefined || row.state !== 'processing' || row.token !== token) return false;
    row.state = 'done';
    row.expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    return true;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    const id = rowId(scope, key);
    const row = this.#rows.get(id);
    if (row !== undefined && row.state === 'processing' && row.token === token) this.#rows.delete(id);
  }

  async sweep(now: number = Date.now()): Promise<number> {
    let removed = 0;
    for (const [id, row] of this.#rows) {
      if (row.state === 'done' && row.expiresAt <= now) {
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
