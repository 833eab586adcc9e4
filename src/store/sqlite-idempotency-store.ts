import { randomUUID } from 'node:crypto';
import {
  DEFAULT_EXPIRED_KEPT_MS,
  type IdempotencyClaim,
  type IdempotencyClaimOptions,
  type IdempotencyCompleteOptions,
  type IdempotencyReclaimOptions,
  type IdempotencyStore,
} from './idempotency-store.js';
import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import type { SqliteStoreOptions } from './sqlite-options.js';

const MIGRATIONS = [
  `CREATE TABLE seller_idempotency (
     scope TEXT NOT NULL,
     key TEXT NOT NULL,
     payload_hash TEXT NOT NULL,
     token TEXT NOT NULL,
     response TEXT,
     lease_expires_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (scope, key)
   ) WITHOUT ROWID;
   CREATE INDEX seller_idempotency_expiry ON seller_idempotency (expires_at);`,
  // The sweep's OR over `lease_expires_at` (not indexed) scans the table whatever this index, so it
  // served no query and cost every claim a second page in its commit (bench/results/idempotency.md).
  `DROP INDEX IF EXISTS seller_idempotency_expiry;`,
] as const;

// One statement, its own transaction: the insert wins for a new key; the conditional update takes
// over only a row that no longer answers for its key (done past its TTL and the time it answers
// `expired`, or in flight past its lease: the holder died). The row's expiry is written here when
// the caller knows its TTL (expires, else 0), so storing the answer usually sets only the response.
// Parameters in order: scope, key, hash, token, lease, expires, now, forget (positional: binding
// an object by names costs more per call).
const CLAIM = `INSERT INTO seller_idempotency (scope, key, payload_hash, token, response, lease_expires_at, expires_at)
  VALUES (?, ?, ?, ?, NULL, ?, ?)
  ON CONFLICT (scope, key) DO UPDATE SET payload_hash = excluded.payload_hash, token = excluded.token,
    response = NULL, lease_expires_at = excluded.lease_expires_at, expires_at = excluded.expires_at
  WHERE (response IS NULL AND lease_expires_at <= ?) OR (response IS NOT NULL AND expires_at <= ?)`;

interface Row {
  payload_hash: string;
  token: string;
  response: string | null;
  lease_expires_at: number;
  expires_at: number;
}

/** The prepared statements of one database handle, made once. */
function prepare(db: SqliteDatabase) {
  const insert = db.prepare<[string, string, string, string, number, number, number, number]>(CLAIM);
  const read = db.prepare<[string, string], Row>(
    'SELECT payload_hash, token, response, lease_expires_at, expires_at FROM seller_idempotency WHERE scope = ? AND key = ?',
  );
  return {
    claim(scope: string, key: string, options: IdempotencyClaimOptions): IdempotencyClaim {
      const now = options.now ?? Date.now();
      const forget = now - (options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS);
      const lease = now + options.leaseMs;
      const expires = options.ttlMs === undefined ? 0 : lease + options.ttlMs;
      // A refused insert reads the row that refused it; if that row went away in between (released
      // or swept), the insert is tried again.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const token = randomUUID();
        if (insert.run(scope, key, options.payloadHash, token, lease, expires, now, forget).changes === 1) {
          return { kind: 'claimed', token };
        }
        const row = read.get(scope, key);
        if (row === undefined) continue;
        if (row.response !== null && row.expires_at <= now) return { kind: 'expired' };
        if (row.payload_hash !== options.payloadHash) return { kind: 'conflict' };
        if (row.response === null) return { kind: 'in_flight', leaseExpiresAt: row.lease_expires_at };
        return { kind: 'replay', response: JSON.parse(row.response) as unknown, token: row.token };
      }
      throw new Error('idempotency store: the key kept changing under the claim');
    },
    // Storing the answer sets only the response when the claim's expiry covers the TTL from now
    // (the usual case); otherwise (no TTL at the claim, a reclaim, an answer stored past the lease)
    // it sets the expiry too.
    completeWithinExpiry: db.prepare(
      `UPDATE seller_idempotency SET response = ?
       WHERE scope = ? AND key = ? AND token = ? AND response IS NULL AND expires_at >= ?`,
    ),
    complete: db.prepare(
      `UPDATE seller_idempotency SET response = ?, expires_at = ?
       WHERE scope = ? AND key = ? AND token = ? AND response IS NULL`,
    ),
    release: db.prepare(
      'DELETE FROM seller_idempotency WHERE scope = ? AND key = ? AND token = ? AND response IS NULL',
    ),
    reclaim: db.prepare(
      `UPDATE seller_idempotency SET token = ?, response = NULL, lease_expires_at = ?, expires_at = 0
       WHERE scope = ? AND key = ? AND token = ? AND response IS NOT NULL`,
    ),
    sweep: db.prepare(
      `DELETE FROM seller_idempotency
       WHERE (response IS NOT NULL AND expires_at <= ?) OR (response IS NULL AND lease_expires_at <= ?)`,
    ),
  };
}

/** The embedded `IdempotencyStore`: table `seller_idempotency` in a SQLite file, durable across restarts. */
export class SqliteIdempotencyStore implements IdempotencyStore {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #sql: ReturnType<typeof prepare>;

  constructor(options: SqliteStoreOptions) {
    const { db, owned } = openSqliteDatabase(options);
    migrateSqlite(db, 'seller_idempotency', MIGRATIONS);
    this.#db = db;
    this.#owned = owned;
    this.#sql = prepare(db);
  }

  async claim(scope: string, key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim> {
    return this.#sql.claim(scope, key, options);
  }

  async complete(scope: string, key: string, token: string, options: IdempotencyCompleteOptions): Promise<boolean> {
    const text = JSON.stringify(options.response);
    if (text === undefined) throw new TypeError('idempotency store: a response is required');
    const expires = (options.now ?? Date.now()) + options.ttlMs;
    if (this.#sql.completeWithinExpiry.run(text, scope, key, token, expires).changes === 1) return true;
    return this.#sql.complete.run(text, expires, scope, key, token).changes === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    this.#sql.release.run(scope, key, token);
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: IdempotencyReclaimOptions,
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const next = randomUUID();
    const lease = (options.now ?? Date.now()) + options.leaseMs;
    const changed = this.#sql.reclaim.run(next, lease, scope, key, token).changes;
    return changed === 1 ? { kind: 'claimed', token: next } : undefined;
  }

  async sweep(now = Date.now(), options: { expiredForMs?: number } = {}): Promise<number> {
    return this.#sql.sweep.run(now - (options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS), now).changes;
  }

  async close(): Promise<void> {
    if (this.#owned && this.#db.open) this.#db.close();
  }
}
