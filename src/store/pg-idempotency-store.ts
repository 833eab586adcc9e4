import { randomUUID } from 'node:crypto';
import {
  DEFAULT_EXPIRED_KEPT_MS,
  type IdempotencyClaim,
  type IdempotencyClaimOptions,
  type IdempotencyCompleteOptions,
  type IdempotencyReclaimOptions,
  type IdempotencyStore,
} from './idempotency-store.js';
import { openPgDatabase, toMs, type PgDatabase, type PgStoreOptions } from './pg-database.js';
import { sweepInBatches } from './pg-sweep.js';
import { encodeKey } from './pg-key.js';

// One statement, atomic per key in PostgreSQL: the insert wins for a new key; the conditional
// update takes over only a row that no longer answers for its key (done past its TTL and the time
// it answers `expired`, or in flight past its lease because its holder died). Any number of instances claiming one key get
// exactly one `claimed`.
const CLAIM = `INSERT INTO adcp_idempotency AS i (scope, key, payload_hash, token, response, lease_expires_at, expires_at)
  VALUES ($1, $2, $3, $4, NULL, $5, 0)
  ON CONFLICT (scope, key) DO UPDATE SET payload_hash = excluded.payload_hash, token = excluded.token,
    response = NULL, lease_expires_at = excluded.lease_expires_at, expires_at = 0
  WHERE (i.response IS NULL AND i.lease_expires_at <= $6) OR (i.response IS NOT NULL AND i.expires_at <= $7)
  RETURNING token`;

const READ = `SELECT payload_hash, token, response, lease_expires_at, expires_at
  FROM adcp_idempotency WHERE scope = $1 AND key = $2`;

const SWEEP_BATCH = 500;

/** The shared `IdempotencyStore` (`adcp_idempotency`): every instance of a seller fleet sees one replay window. */
export class PgIdempotencyStore implements IdempotencyStore {
  readonly #db: PgDatabase;
  readonly #owned: boolean;

  constructor(options: PgStoreOptions) {
    const { database, owned } = openPgDatabase(options);
    this.#db = database;
    this.#owned = owned;
  }

  async claim(scope: string, key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim> {
    const db = this.#db;
    const now = options.now ?? Date.now();
    const forget = now - (options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS);
    const keyBytes = encodeKey(key);
    // Bounded: the row can be released or lapse between the two statements; then claim again.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const token = randomUUID();
      const claimed = await db.query('idempotency claim', CLAIM, [
        scope,
        keyBytes,
        options.payloadHash,
        token,
        now + options.leaseMs,
        now,
        forget,
      ]);
      if (claimed.rowCount === 1) return { kind: 'claimed', token };
      const { rows } = await db.query<{
        payload_hash: string;
        token: string;
        response: string | null;
        lease_expires_at: string;
        expires_at: string;
      }>('idempotency claim', READ, [scope, keyBytes]);
      const row = rows[0];
      if (row === undefined) continue;
      const lease = toMs(row.lease_expires_at);
      const expiresAt = toMs(row.expires_at);
      const live = row.response === null ? lease > now : expiresAt > forget;
      if (!live) continue;
      if (row.response !== null && expiresAt <= now) return { kind: 'expired' };
      if (row.payload_hash !== options.payloadHash) return { kind: 'conflict' };
      if (row.response === null) return { kind: 'in_flight', leaseExpiresAt: lease };
      return { kind: 'replay', response: JSON.parse(row.response) as unknown, token: row.token };
    }
    return { kind: 'in_flight', leaseExpiresAt: now + options.leaseMs };
  }

  async complete(scope: string, key: string, token: string, options: IdempotencyCompleteOptions): Promise<boolean> {
    const text = JSON.stringify(options.response);
    if (text === undefined) throw new TypeError('idempotency store: a response is required');
    const result = await this.#db.query(
      'idempotency complete',
      `UPDATE adcp_idempotency SET response = $4, expires_at = $5
         WHERE scope = $1 AND key = $2 AND token = $3 AND response IS NULL`,
      [scope, encodeKey(key), token, text, (options.now ?? Date.now()) + options.ttlMs],
    );
    return result.rowCount === 1;
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.#db.query(
      'idempotency release',
      'DELETE FROM adcp_idempotency WHERE scope = $1 AND key = $2 AND token = $3 AND response IS NULL',
      [scope, encodeKey(key), token],
    );
  }

  async reclaim(
    scope: string,
    key: string,
    token: string,
    options: IdempotencyReclaimOptions,
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    const next = randomUUID();
    const result = await this.#db.query(
      'idempotency reclaim',
      `UPDATE adcp_idempotency SET token = $4, response = NULL, lease_expires_at = $5, expires_at = 0
         WHERE scope = $1 AND key = $2 AND token = $3 AND response IS NOT NULL`,
      [scope, encodeKey(key), token, next, (options.now ?? Date.now()) + options.leaseMs],
    );
    return result.rowCount === 1 ? { kind: 'claimed', token: next } : undefined;
  }

  async sweep(now = Date.now(), options: { expiredForMs?: number } = {}): Promise<number> {
    const forget = now - (options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS);
    return sweepInBatches(
      this.#db,
      'idempotency sweep',
      `DELETE FROM adcp_idempotency WHERE (scope, key) IN (
             SELECT scope, key FROM adcp_idempotency
             WHERE (response IS NOT NULL AND expires_at <= $2) OR (response IS NULL AND lease_expires_at <= $1)
             LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
      [now, forget],
      SWEEP_BATCH,
    );
  }

  async ping(): Promise<void> {
    await this.#db.ping();
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#db.close();
  }
}
