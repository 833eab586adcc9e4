import { randomUUID } from 'node:crypto';
import {
  CLAIM_ATTEMPTS,
  judgeClaim,
  type Claim,
  type ClaimOptions,
  type ClaimPolicy,
  type ClaimStore,
} from './claim-store.js';
import { openPgDatabase, toMs, type PgDatabase, type PgStoreOptions } from './pg-database.js';
import { encodeKey } from './pg-key.js';
import { sweepInBatches } from './pg-sweep.js';

/**
 * Where a use keeps its claims in PostgreSQL (created by ./pg-migrations.ts) and how its columns
 * spell the machine's row, as in `SqliteClaimTable`: `done` is an SQL condition on the row
 * (qualified by the alias `c`), `setInFlight` / `setDone` the SET clauses (`setDone` takes the
 * result as `$5` when the table keeps one).
 */
export interface PgClaimTable {
  readonly name: string;
  /** Names the queries in errors and traces (`dedup`, `idempotency`). */
  readonly label: string;
  readonly fingerprint: string;
  readonly inFlightColumns: { names: string; values: string };
  readonly done: (alias: string) => string;
  readonly setInFlight: string;
  readonly setDone: string;
  readonly result: string | undefined;
  readonly noExpiry: 'NULL' | '0';
  readonly policy: ClaimPolicy;
}

const SWEEP_BATCH = 500;

function statements(t: PgClaimTable) {
  const fp = t.fingerprint;
  const done = t.done('c');
  // The insert wins for a new key; the conditional update takes over only a row `judgeClaim`
  // would take. PostgreSQL runs either branch atomically per key, so any number of processes
  // claiming one key get exactly one `claimed`.
  const keepsFingerprint = t.policy.lapsedLeaseReleases
    ? ''
    : `AND (c.${fp} IS NULL OR excluded.${fp} IS NULL OR c.${fp} = excluded.${fp})`;
  const fingerprintOnTakeover = t.policy.lapsedLeaseReleases
    ? `excluded.${fp}`
    : `CASE WHEN ${done} THEN excluded.${fp} ELSE coalesce(c.${fp}, excluded.${fp}) END`;
  return {
    claim: `INSERT INTO ${t.name} AS c (scope, key, token, lease_expires_at, ${fp}, expires_at${t.inFlightColumns.names})
      VALUES ($1, $2, $3, $4, $5, ${t.noExpiry}${t.inFlightColumns.values})
      ON CONFLICT (scope, key) DO UPDATE SET ${fp} = ${fingerprintOnTakeover}, token = excluded.token,
        ${t.setInFlight}, lease_expires_at = excluded.lease_expires_at, expires_at = ${t.noExpiry}
      WHERE (NOT (${done}) AND c.lease_expires_at <= $6 ${keepsFingerprint}) OR ((${done}) AND c.expires_at <= $7)
      RETURNING token`,
    read: `SELECT (${done}) AS done, token, ${fp} AS fingerprint, lease_expires_at AS lease, expires_at AS expires,
      ${t.result === undefined ? 'NULL' : `c.${t.result}`} AS result FROM ${t.name} c WHERE scope = $1 AND key = $2`,
    complete: `UPDATE ${t.name} c SET ${t.setDone}, expires_at = $4
      WHERE scope = $1 AND key = $2 AND token = $3 AND NOT (${done})`,
    release: `DELETE FROM ${t.name} c WHERE scope = $1 AND key = $2 AND token = $3 AND NOT (${done})`,
    reclaim: `UPDATE ${t.name} c SET token = $4, ${t.setInFlight}, lease_expires_at = $5, expires_at = ${t.noExpiry}
      WHERE scope = $1 AND key = $2 AND token = $3 AND (${done})`,
    // Batches locked with SKIP LOCKED, so writers never wait on a sweep.
    sweep: `DELETE FROM ${t.name} WHERE (scope, key) IN (SELECT scope, key FROM ${t.name} c
      WHERE ((${done}) AND c.expires_at <= $1)${t.policy.lapsedLeaseReleases ? ` OR (NOT (${done}) AND c.lease_expires_at <= $2)` : ''}
      LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
  };
}

interface PgClaimRow {
  done: boolean;
  token: string;
  fingerprint: string | null;
  lease: string;
  expires: string | null;
  result: string | null;
}

/**
 * The shared `ClaimStore`: one row per (scope, key) in a PostgreSQL table; keys are stored as
 * bytea (`encodeKey`), so any JS string is a key. `claim` is one statement; when it takes
 * nothing, a read of the row and `judgeClaim` say why.
 */
export class PgClaimStore implements ClaimStore {
  readonly #db: PgDatabase;
  readonly #owned: boolean;
  readonly #table: PgClaimTable;
  readonly #sql: ReturnType<typeof statements>;

  constructor(options: PgStoreOptions, table: PgClaimTable) {
    const { database, owned } = openPgDatabase(options);
    this.#db = database;
    this.#owned = owned;
    this.#table = table;
    this.#sql = statements(table);
  }

  /** The database this store runs on (to combine statements with another store on it). */
  get database(): PgDatabase {
    return this.#db;
  }

  async claim(scope: string, key: string, options: ClaimOptions): Promise<Claim> {
    const now = options.now ?? Date.now();
    const keptMs = options.keptMs ?? 0;
    const keyBytes = encodeKey(key);
    const label = `${this.#table.label} claim`;
    // Bounded: the row can vanish (released) or lapse between the two statements; then retry.
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const token = randomUUID();
      const claimed = await this.#db.query(label, this.#sql.claim, [
        scope,
        keyBytes,
        token,
        now + options.leaseMs,
        options.fingerprint ?? null,
        now,
        now - keptMs,
      ]);
      if (claimed.rowCount === 1) return { kind: 'claimed', token };
      const { rows } = await this.#db.query<PgClaimRow>(label, this.#sql.read, [scope, keyBytes]);
      const row = rows[0];
      const verdict = judgeClaim(
        row === undefined
          ? undefined
          : {
              done: row.done,
              token: row.token,
              fingerprint: row.fingerprint ?? undefined,
              leaseExpiresAt: toMs(row.lease),
              expiresAt: row.expires === null ? 0 : toMs(row.expires),
              result: row.result ?? undefined,
            },
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
    return this.completeIn(
      { query: (sql, values) => this.#db.query(`${this.#table.label} complete`, sql, values) },
      { scope, key, token, ...options },
    );
  }

  /**
   * `complete`, inside the caller's own transaction (`client` has run `BEGIN`): the caller's
   * writes and the key's completion commit together. `false` means the claim was lost: roll back.
   */
  async completeIn(
    client: { query(sql: string, values: unknown[]): Promise<{ rowCount: number | null }> },
    claim: { scope: string; key: string; token: string; ttlMs: number; now?: number; result?: string },
  ): Promise<boolean> {
    const expiresAt = (claim.now ?? Date.now()) + claim.ttlMs;
    const values: unknown[] = [claim.scope, encodeKey(claim.key), claim.token, expiresAt];
    if (this.#table.result !== undefined) values.push(claim.result ?? null);
    const result = await client.query(this.#sql.complete, values);
    return result.rowCount === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.#db.query(`${this.#table.label} release`, this.#sql.release, [scope, encodeKey(key), token]);
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: { leaseMs: number; now?: number },
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const next = randomUUID();
    const result = await this.#db.query(`${this.#table.label} reclaim`, this.#sql.reclaim, [
      scope,
      encodeKey(key),
      token,
      next,
      (options.now ?? Date.now()) + options.leaseMs,
    ]);
    return result.rowCount === 1 ? { kind: 'claimed', token: next } : undefined;
  }

  async sweep(now: number = Date.now(), options: { keptMs?: number } = {}): Promise<number> {
    const forget = now - (options.keptMs ?? 0);
    const values = this.#table.policy.lapsedLeaseReleases ? [forget, now] : [forget];
    return sweepInBatches(this.#db, `${this.#table.label} sweep`, this.#sql.sweep, values, SWEEP_BATCH);
  }

  async ping(): Promise<void> {
    await this.#db.ping();
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#db.close();
  }
}
