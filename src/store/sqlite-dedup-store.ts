import { randomUUID } from 'node:crypto';
import type { ClaimOutcome, DedupStore } from './types.js';
import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import type { SqliteStoreOptions } from './sqlite-options.js';
import { writeBatcherFor, type SqliteWriteBatcher } from './sqlite-write-batcher.js';

const MIGRATIONS = [
  `CREATE TABLE webhook_dedup (
     scope TEXT NOT NULL,
     key TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('processing', 'done')),
     token TEXT NOT NULL,
     lease_expires_at INTEGER NOT NULL,
     expires_at INTEGER,
     fingerprint TEXT,
     PRIMARY KEY (scope, key)
   ) WITHOUT ROWID;
   CREATE INDEX webhook_dedup_expiry ON webhook_dedup (expires_at) WHERE state = 'done';`,
] as const;

/**
 * The embedded `DedupStore`: one SQLite row per (scope, key), claimed inside an IMMEDIATE
 * transaction, so concurrent claims from any number of connections or processes on the same file
 * yield exactly one `claimed`. A row is reclaimable once its lease expired (the holder crashed) or,
 * when done, once its TTL passed. Writes go through the connection's group-commit queue.
 */
export class SqliteDedupStore implements DedupStore {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #writes: SqliteWriteBatcher;
  readonly #claim: (
    scope: string,
    key: string,
    leaseMs: number,
    now: number,
    fingerprint: string | null,
  ) => ClaimOutcome;
  readonly #complete;
  readonly #release;
  readonly #sweep;

  constructor(options: SqliteStoreOptions) {
    const { db, owned } = openSqliteDatabase(options);
    this.#db = db;
    this.#owned = owned;
    this.#writes = writeBatcherFor(db);
    migrateSqlite(db, 'webhook_dedup', MIGRATIONS);
    const read = db.prepare(
      'SELECT state, lease_expires_at AS lease, expires_at AS expires, fingerprint FROM webhook_dedup WHERE scope = ? AND key = ?',
    );
    const take = db.prepare(
      `INSERT INTO webhook_dedup (scope, key, state, token, lease_expires_at, expires_at, fingerprint)
       VALUES (?, ?, 'processing', ?, ?, NULL, ?)
       ON CONFLICT (scope, key) DO UPDATE SET state = 'processing', token = excluded.token,
         lease_expires_at = excluded.lease_expires_at, expires_at = NULL, fingerprint = excluded.fingerprint`,
    );
    // Read then write inside one IMMEDIATE transaction: the write lock is held from the read on,
    // so no other connection or process can interleave.
    const claim = db.transaction(
      (scope: string, key: string, leaseMs: number, now: number, fingerprint: string | null): ClaimOutcome => {
        const row = read.get(scope, key) as
          { state: string; lease: number; expires: number | null; fingerprint: string | null } | undefined;
        if (row !== undefined && !(row.state === 'done' && (row.expires ?? 0) <= now)) {
          if (row.fingerprint !== null && fingerprint !== null && row.fingerprint !== fingerprint)
            return { kind: 'conflict' };
          if (row.state === 'done') return { kind: 'done' };
          if (row.lease > now) return { kind: 'busy', leaseExpiresAt: row.lease };
          fingerprint = row.fingerprint ?? fingerprint;
        }
        const token = randomUUID();
        take.run(scope, key, token, now + leaseMs, fingerprint);
        return { kind: 'claimed', token };
      },
    );
    // Fast path for the common case, a key never seen: one autocommitted INSERT, no transaction.
    const fresh = db.prepare(
      `INSERT INTO webhook_dedup (scope, key, state, token, lease_expires_at, expires_at, fingerprint)
       VALUES (?, ?, 'processing', ?, ?, NULL, ?) ON CONFLICT (scope, key) DO NOTHING`,
    );
    this.#claim = (scope, key, leaseMs, now, fingerprint) => {
      const token = randomUUID();
      if (fresh.run(scope, key, token, now + leaseMs, fingerprint).changes === 1) return { kind: 'claimed', token };
      return claim.immediate(scope, key, leaseMs, now, fingerprint);
    };
    this.#complete = db.prepare(
      `UPDATE webhook_dedup SET state = 'done', expires_at = ?
       WHERE scope = ? AND key = ? AND token = ? AND state = 'processing'`,
    );
    this.#release = db.prepare(
      "DELETE FROM webhook_dedup WHERE scope = ? AND key = ? AND token = ? AND state = 'processing'",
    );
    // In batches, so a sweep of a large backlog never holds the write lock for long.
    this.#sweep = db.prepare(
      `DELETE FROM webhook_dedup WHERE (scope, key) IN
         (SELECT scope, key FROM webhook_dedup WHERE state = 'done' AND expires_at <= ? LIMIT 500)`,
    );
  }

  async claim(
    scope: string,
    key: string,
    options: { leaseMs: number; now?: number; fingerprint?: string },
  ): Promise<ClaimOutcome> {
    const now = options.now ?? Date.now();
    return this.#writes.run(() => this.#claim(scope, key, options.leaseMs, now, options.fingerprint ?? null));
  }

  async complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number },
  ): Promise<boolean> {
    return this.#writes.run(() => this.completeSync(scope, key, token, options));
  }

  /**
   * `complete`, synchronously, so it can run inside the caller's own `db.transaction()` on the
   * shared connection: the webhook handler's side effect and the key's completion then commit
   * together, and a crash can neither lose the event nor let a redelivery apply it twice.
   */
  completeSync(scope: string, key: string, token: string, options: { ttlMs: number; now?: number }): boolean {
    const expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    return this.#complete.run(expiresAt, scope, key, token).changes === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.#writes.run(() => this.#release.run(scope, key, token));
  }

  async sweep(now: number = Date.now()): Promise<number> {
    let removed = 0;
    for (let batch = 0; batch < 10_000; batch += 1) {
      const changes = this.#sweep.run(now).changes;
      removed += changes;
      if (changes < 500) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    await this.#writes.run(() => undefined); // let queued writes commit first
    if (this.#owned && this.#db.open) this.#db.close();
  }
}
