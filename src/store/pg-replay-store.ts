import { openPgDatabase, type PgDatabase, type PgStoreOptions } from './pg-database.js';
import { sweepInBatches } from './pg-sweep.js';

/** Same outcomes as the webhooks `ReplayStore` (structurally compatible; the store layer does not import webhooks). */
export type PgReplayOutcome = 'recorded' | 'replayed' | 'rate_abuse';

export type PgReplayStoreOptions = PgStoreOptions & {
  /** Live entries per keyid before `rate_abuse` (spec recommendation for webhooks: 100,000). */
  perKeyidCap?: number;
  /** Live entries across all keyids before `rate_abuse` (default 1,000,000). */
  aggregateCap?: number;
  /** How long this process trusts its count of all live entries, ms (default 1,000). */
  aggregateRecountMs?: number;
};

const RECORD = `INSERT INTO adcp_webhook_replay AS r (keyid, nonce, expires_at) VALUES ($1, $2, $3)
  ON CONFLICT (keyid, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE r.expires_at <= $4
  RETURNING 1`;
const LIVE_FOR =
  'SELECT count(*)::int AS n FROM (SELECT 1 FROM adcp_webhook_replay WHERE keyid = $1 AND expires_at > $2 LIMIT $3) live';
const LIVE_TOTAL =
  'SELECT count(*)::int AS n FROM (SELECT 1 FROM adcp_webhook_replay WHERE expires_at > $1 LIMIT $2) live';
const SWEEP_BATCH = 1000;

type CountQuery = (sql: string, values: unknown[]) => Promise<{ rows: { n: number }[] }>;

/**
 * The RFC 9421 `(keyid, nonce)` replay cache shared by a fleet of receivers (security.md: a
 * fleet MUST share one cache). The replay check is one upsert, atomic across processes: a live
 * `(keyid, nonce)` is `replayed` wherever it was first seen. Caps: the per-keyid count is exact
 * but two processes racing at the cap may pass it by one each; the aggregate count is recounted
 * at most every `aggregateRecountMs` per process. Expired rows are invisible and swept in
 * batches with SKIP LOCKED; entries are never dropped early.
 */
export class PgReplayStore {
  readonly #db: PgDatabase;
  readonly #owned: boolean;
  readonly #perKeyidCap: number;
  readonly #aggregateCap: number;
  readonly #recountMs: number;
  #aggregate = { count: 0, at: -Infinity, since: 0 };

  constructor(options: PgReplayStoreOptions) {
    const { perKeyidCap, aggregateCap, aggregateRecountMs, ...store } = options;
    const { database, owned } = openPgDatabase('database' in store ? { database: store.database } : store);
    this.#db = database;
    this.#owned = owned;
    this.#perKeyidCap = perKeyidCap ?? 100_000;
    this.#aggregateCap = aggregateCap ?? 1_000_000;
    this.#recountMs = aggregateRecountMs ?? 1000;
  }

  /** Step 9a: whether `keyid` (or the whole cache) holds as many live entries as allowed. */
  async isAtCapacity(keyid: string, nowSeconds: number): Promise<boolean> {
    if ((await this.#liveFor(keyid, nowSeconds)) >= this.#perKeyidCap) return true;
    return (await this.#liveTotal(nowSeconds)) >= this.#aggregateCap;
  }

  /** Steps 12 and 13: `replayed` when live anywhere in the fleet; `rate_abuse` past a cap; else recorded. */
  async record(keyid: string, nonce: string, expiresAtSeconds: number, nowSeconds: number): Promise<PgReplayOutcome> {
    try {
      return await this.#db.transaction('replay record', async (client) => {
        const inserted = await client.query(RECORD, [keyid, nonce, expiresAtSeconds, nowSeconds]);
        if (inserted.rowCount !== 1) return 'replayed';
        const perKeyid = await client.query<{ n: number }>(LIVE_FOR, [keyid, nowSeconds, this.#perKeyidCap + 1]);
        const total = await this.#liveTotal(nowSeconds, (sql, values) => client.query<{ n: number }>(sql, values));
        // Throwing rolls the insert back: a full cache refuses instead of forgetting.
        if ((perKeyid.rows[0]?.n ?? 0) > this.#perKeyidCap || total + 1 > this.#aggregateCap) throw new CapReached();
        this.#aggregate.since += 1;
        return 'recorded';
      });
    } catch (error) {
      if (error instanceof CapReached) return 'rate_abuse';
      throw error;
    }
  }

  /** Deletes expired entries in batches. Returns how many. */
  async sweep(nowSeconds: number = Math.floor(Date.now() / 1000)): Promise<number> {
    return sweepInBatches(
      this.#db,
      'replay sweep',
      `DELETE FROM adcp_webhook_replay WHERE (keyid, nonce) IN (
           SELECT keyid, nonce FROM adcp_webhook_replay WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
      [nowSeconds],
      SWEEP_BATCH,
    );
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#db.close();
  }

  async #liveFor(keyid: string, nowSeconds: number): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>('replay capacity', LIVE_FOR, [
      keyid,
      nowSeconds,
      this.#perKeyidCap,
    ]);
    return rows[0]?.n ?? 0;
  }

  /** All live entries (bounded count), recounted at most every `aggregateRecountMs` by this process. */
  async #liveTotal(
    nowSeconds: number,
    query: CountQuery = (sql, values) => this.#db.query('replay capacity', sql, values),
  ): Promise<number> {
    const now = Date.now();
    if (now - this.#aggregate.at >= this.#recountMs) {
      const { rows } = await query(LIVE_TOTAL, [nowSeconds, this.#aggregateCap]);
      this.#aggregate = { count: rows[0]?.n ?? 0, at: now, since: 0 };
    }
    return this.#aggregate.count + this.#aggregate.since;
  }
}

/** Thrown inside the transaction so it rolls back the insert that passed a cap. */
class CapReached extends Error {}
