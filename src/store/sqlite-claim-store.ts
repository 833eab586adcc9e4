import { randomUUID } from 'node:crypto';
import {
  CLAIM_ATTEMPTS,
  judgeClaim,
  type Claim,
  type ClaimOptions,
  type ClaimPolicy,
  type ClaimRow,
  type ClaimStore,
} from './claim-store.js';
import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import type { SqliteStoreOptions } from './sqlite-options.js';
import { writeBatcherFor, type SqliteWriteBatcher } from './sqlite-write-batcher.js';

/**
 * Where a use keeps its claims: the table and how its columns spell the machine's row (the two
 * tables predate the shared machine and keep their schema, so files written before it still
 * open). `done` is an SQL condition on the row, `setInFlight` / `setDone` the SET clauses.
 */
export interface SqliteClaimTable {
  readonly name: string;
  readonly migrations: readonly string[];
  readonly fingerprint: string;
  /** Columns (and their values) a new row in flight sets besides the machine's, as `, a` / `, 'x'`. */
  readonly inFlightColumns: { names: string; values: string };
  readonly done: string;
  readonly setInFlight: string;
  /** Sets the row completed; takes the result as its one `?` when the table keeps one. */
  readonly setDone: string;
  readonly result: string | undefined;
  /** `expires_at` of a row in flight. */
  readonly noExpiry: 'NULL' | '0';
  readonly policy: ClaimPolicy;
  /** Run writes through the connection's group-commit queue (many concurrent deliveries). */
  readonly groupCommit: boolean;
}

const SWEEP_BATCH = 500;

function statements(db: SqliteDatabase, t: SqliteClaimTable) {
  const fp = t.fingerprint;
  // One statement, its own transaction: the insert wins for a new key; the conditional update
  // takes over only a row `judgeClaim` would take (done and forgotten, or a lapsed lease, kept
  // by its first fingerprint unless the policy releases it). Parameters: scope, key, token,
  // lease, fingerprint, now, forget (positional: binding by name costs more per call).
  const keepsFingerprint = t.policy.lapsedLeaseReleases
    ? ''
    : `AND (${fp} IS NULL OR excluded.${fp} IS NULL OR ${fp} = excluded.${fp})`;
  const fingerprintOnTakeover = t.policy.lapsedLeaseReleases
    ? `excluded.${fp}`
    : `CASE WHEN ${t.done} THEN excluded.${fp} ELSE coalesce(${fp}, excluded.${fp}) END`;
  const claim = db.prepare<[string, string, string, number, string | null, number, number]>(
    `INSERT INTO ${t.name} (scope, key, token, lease_expires_at, ${fp}, expires_at${t.inFlightColumns.names})
       VALUES (?, ?, ?, ?, ?, ${t.noExpiry}${t.inFlightColumns.values})
     ON CONFLICT (scope, key) DO UPDATE SET ${fp} = ${fingerprintOnTakeover}, token = excluded.token,
       ${t.setInFlight}, lease_expires_at = excluded.lease_expires_at, expires_at = ${t.noExpiry}
     WHERE (NOT (${t.done}) AND lease_expires_at <= ? ${keepsFingerprint}) OR ((${t.done}) AND expires_at <= ?)`,
  );
  const read = db.prepare<
    [string, string],
    {
      done: number;
      token: string;
      fingerprint: string | null;
      lease: number;
      expires: number | null;
      result: string | null;
    }
  >(
    `SELECT (${t.done}) AS done, token, ${fp} AS fingerprint, lease_expires_at AS lease, expires_at AS expires,
       ${t.result ?? 'NULL'} AS result FROM ${t.name} WHERE scope = ? AND key = ?`,
  );
  const doneParams = t.result === undefined ? 0 : 1;
  return {
    claim,
    read,
    complete: db.prepare(
      `UPDATE ${t.name} SET ${t.setDone}, expires_at = ? WHERE scope = ? AND key = ? AND token = ? AND NOT (${t.done})`,
    ),
    doneParams,
    release: db.prepare(`DELETE FROM ${t.name} WHERE scope = ? AND key = ? AND token = ? AND NOT (${t.done})`),
    reclaim: db.prepare(
      `UPDATE ${t.name} SET token = ?, ${t.setInFlight}, lease_expires_at = ?, expires_at = ${t.noExpiry}
       WHERE scope = ? AND key = ? AND token = ? AND (${t.done})`,
    ),
    // In batches, so a sweep of a large backlog never holds the write lock for long.
    sweep: db.prepare(
      `DELETE FROM ${t.name} WHERE (scope, key) IN (SELECT scope, key FROM ${t.name}
         WHERE ((${t.done}) AND expires_at <= ?)${t.policy.lapsedLeaseReleases ? ` OR (NOT (${t.done}) AND lease_expires_at <= ?)` : ''}
         LIMIT ${SWEEP_BATCH})`,
    ),
  };
}

/**
 * The embedded `ClaimStore`: one row per (scope, key) in a SQLite file. `claim` is one
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE` (atomic across connections and processes on the
 * file); when it takes nothing, a read of the row and `judgeClaim` say why.
 */
export class SqliteClaimStore implements ClaimStore {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #table: SqliteClaimTable;
  readonly #writes: SqliteWriteBatcher | undefined;
  readonly #sql: ReturnType<typeof statements>;

  constructor(options: SqliteStoreOptions, table: SqliteClaimTable) {
    const { db, owned } = openSqliteDatabase(options);
    migrateSqlite(db, table.name, table.migrations);
    this.#db = db;
    this.#owned = owned;
    this.#table = table;
    this.#writes = table.groupCommit ? writeBatcherFor(db) : undefined;
    this.#sql = statements(db, table);
  }

  #write<T>(fn: () => T): Promise<T> {
    return this.#writes === undefined ? Promise.resolve(fn()) : this.#writes.run(fn);
  }

  async claim(scope: string, key: string, options: ClaimOptions): Promise<Claim> {
    const now = options.now ?? Date.now();
    return this.#write(() => this.#claim(scope, key, options, now));
  }

  #claim(scope: string, key: string, options: ClaimOptions, now: number): Claim {
    const keptMs = options.keptMs ?? 0;
    const fingerprint = options.fingerprint ?? null;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const token = randomUUID();
      const lease = now + options.leaseMs;
      if (this.#sql.claim.run(scope, key, token, lease, fingerprint, now, now - keptMs).changes === 1) {
        return { kind: 'claimed', token };
      }
      const verdict = judgeClaim(
        toRow(this.#sql.read.get(scope, key)),
        { now, fingerprint: options.fingerprint, keptMs },
        this.#table.policy,
      );
      if (verdict.kind !== 'take') return verdict;
    }
    // Still contended after every round: let the caller retry.
    return { kind: 'busy', leaseExpiresAt: now + options.leaseMs };
  }

  async complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number; result?: string },
  ): Promise<boolean> {
    return this.#write(() => this.completeSync(scope, key, token, options));
  }

  /**
   * `complete`, synchronously, so it can run inside the caller's own `db.transaction()` on the
   * shared connection: the caller's side effect and the key's completion then commit together.
   */
  completeSync(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number; result?: string },
  ): boolean {
    const expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    const head = this.#sql.doneParams === 1 ? [options.result ?? null] : [];
    return this.#sql.complete.run(...head, expiresAt, scope, key, token).changes === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.#write(() => this.#sql.release.run(scope, key, token));
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: { leaseMs: number; now?: number },
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const next = randomUUID();
    const lease = (options.now ?? Date.now()) + options.leaseMs;
    const changed = await this.#write(() => this.#sql.reclaim.run(next, lease, scope, key, token).changes);
    return changed === 1 ? { kind: 'claimed', token: next } : undefined;
  }

  async sweep(now: number = Date.now(), options: { keptMs?: number } = {}): Promise<number> {
    const params = this.#table.policy.lapsedLeaseReleases
      ? [now - (options.keptMs ?? 0), now]
      : [now - (options.keptMs ?? 0)];
    let removed = 0;
    for (let batch = 0; batch < 10_000; batch += 1) {
      const changes = this.#sql.sweep.run(...params).changes;
      removed += changes;
      if (changes < SWEEP_BATCH) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return removed;
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    if (this.#writes !== undefined) await this.#writes.run(() => undefined); // let queued writes commit first
    if (this.#owned && this.#db.open) this.#db.close();
  }
}

function toRow(
  row:
    | {
        done: number;
        token: string;
        fingerprint: string | null;
        lease: number;
        expires: number | null;
        result: string | null;
      }
    | undefined,
): ClaimRow | undefined {
  if (row === undefined) return undefined;
  return {
    done: row.done === 1,
    token: row.token,
    fingerprint: row.fingerprint ?? undefined,
    leaseExpiresAt: row.lease,
    expiresAt: row.expires ?? 0,
    result: row.result ?? undefined,
  };
}
