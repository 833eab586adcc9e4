import { randomUUID } from 'node:crypto';
import type { ClaimAndAdvanceOutcome, ClaimAndAdvanceRequest, ClaimOutcome, DedupStore } from './types.js';
import { openPgDatabase, toMs, type PgDatabase, type PgStoreOptions } from './pg-database.js';
import { pgDatabaseOf } from './pg-operation-store.js';
import { pgClaimAndAdvance } from './pg-claim-and-advance.js';
import { sweepInBatches } from './pg-sweep.js';
import { encodeKey } from './pg-key.js';

// The insert wins for a new key. The conditional update takes over a done row past its TTL
// (with the new fingerprint) or a lease that expired because its holder crashed (keeping the
// first fingerprint, and only for a claim whose fingerprint does not contradict it).
const CLAIM = `INSERT INTO adcp_webhook_dedup AS d (scope, key, state, token, lease_expires_at, expires_at, fingerprint)
  VALUES ($1, $2, 'processing', $3, $4, NULL, $6)
  ON CONFLICT (scope, key) DO UPDATE SET
    state = 'processing', token = excluded.token, lease_expires_at = excluded.lease_expires_at, expires_at = NULL,
    fingerprint = CASE WHEN d.state = 'done' THEN excluded.fingerprint ELSE coalesce(d.fingerprint, excluded.fingerprint) END
  WHERE (d.state = 'done' AND d.expires_at <= $5)
     OR (d.state = 'processing' AND d.lease_expires_at <= $5
         AND (d.fingerprint IS NULL OR excluded.fingerprint IS NULL OR d.fingerprint = excluded.fingerprint))
  RETURNING token`;

const READ = `SELECT state, lease_expires_at AS lease, expires_at AS expires, fingerprint
  FROM adcp_webhook_dedup WHERE scope = $1 AND key = $2`;

const COMPLETE = `UPDATE adcp_webhook_dedup SET state = 'done', expires_at = $4
  WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'processing'`;

const SWEEP_BATCH = 500;

/**
 * The shared `DedupStore`: one row per (scope, key) in `adcp_webhook_dedup`. `claim` is one
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE` (insert, never check-then-insert; lease takeover
 * by the conditional update). PostgreSQL runs either branch atomically per key, so any number
 * of processes claiming one key get exactly one `claimed`. When the statement claims nothing,
 * a read of the row says why (`done`, `busy`, `conflict`).
 */
export class PgDedupStore implements DedupStore {
  readonly #db: PgDatabase;
  readonly #owned: boolean;

  constructor(options: PgStoreOptions) {
    const { database, owned } = openPgDatabase(options);
    this.#db = database;
    this.#owned = owned;
  }

  async claim(
    scope: string,
    key: string,
    options: { leaseMs: number; now?: number; fingerprint?: string },
  ): Promise<ClaimOutcome> {
    const now = options.now ?? Date.now();
    const fingerprint = options.fingerprint ?? null;
    const keyBytes = encodeKey(key);
    // Bounded: the row can vanish (released) or lapse between our two statements; then retry.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const token = randomUUID();
      const claimed = await this.#db.query('dedup claim', CLAIM, [
        scope,
        keyBytes,
        token,
        now + options.leaseMs,
        now,
        fingerprint,
      ]);
      if (claimed.rowCount === 1) return { kind: 'claimed', token };
      const { rows } = await this.#db.query<{
        state: string;
        lease: string;
        expires: string | null;
        fingerprint: string | null;
      }>('dedup claim', READ, [scope, keyBytes]);
      const row = rows[0];
      if (row === undefined || (row.state === 'done' && toMs(row.expires) <= now)) continue;
      if (row.fingerprint !== null && fingerprint !== null && row.fingerprint !== fingerprint)
        return { kind: 'conflict' };
      if (row.state === 'done') return { kind: 'done' };
      if (toMs(row.lease) > now) return { kind: 'busy', leaseExpiresAt: toMs(row.lease) };
    }
    // Still contended after five rounds: let the sender retry.
    return { kind: 'busy', leaseExpiresAt: now + options.leaseMs };
  }

  /**
   * The claim and, only when it is taken, the operation's create-or-advance, in one statement,
   * when `request.operations` is a `PgOperationStore` on this store's `PgDatabase` (both opened
   * with `{ database }`, as `openStoresFromUrl` does); `undefined` otherwise.
   */
  async claimAndAdvance(request: ClaimAndAdvanceRequest): Promise<ClaimAndAdvanceOutcome | undefined> {
    if (pgDatabaseOf(request.operations) !== this.#db) return undefined;
    return pgClaimAndAdvance(this.#db, request, encodeKey(request.key));
  }

  async complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number },
  ): Promise<boolean> {
    const expiresAt = (options.now ?? Date.now()) + options.ttlMs;
    const result = await this.#db.query('dedup complete', COMPLETE, [scope, encodeKey(key), token, expiresAt]);
    return result.rowCount === 1;
  }

  /**
   * `complete`, inside the caller's own transaction (`client` has run `BEGIN`; for instance in
   * `PgDatabase.transaction`): the webhook handler's writes and the key's completion commit
   * together, so a crash can neither lose the event nor let a redelivery apply it twice. `false`
   * means this delivery no longer holds the key (its lease lapsed and another took it): roll back.
   */
  async completeIn(
    client: { query(sql: string, values: unknown[]): Promise<{ rowCount: number | null }> },
    claim: { scope: string; key: string; token: string; ttlMs: number; now?: number },
  ): Promise<boolean> {
    const expiresAt = (claim.now ?? Date.now()) + claim.ttlMs;
    const result = await client.query(COMPLETE, [claim.scope, encodeKey(claim.key), claim.token, expiresAt]);
    return result.rowCount === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.#db.query(
      'dedup release',
      "DELETE FROM adcp_webhook_dedup WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'processing'",
      [scope, encodeKey(key), token],
    );
  }

  /** Deletes in batches of 500 locked with SKIP LOCKED, so writers never wait on a sweep. */
  async sweep(now: number = Date.now()): Promise<number> {
    return sweepInBatches(
      this.#db,
      'dedup sweep',
      `DELETE FROM adcp_webhook_dedup WHERE (scope, key) IN (
           SELECT scope, key FROM adcp_webhook_dedup
           WHERE state = 'done' AND expires_at <= $1
           LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
      [now],
      SWEEP_BATCH,
    );
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#db.close();
  }
}
