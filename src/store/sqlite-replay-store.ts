import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import type { SqliteStoreOptions } from './sqlite-options.js';
import { writeBatcherFor, type SqliteWriteBatcher } from './sqlite-write-batcher.js';

const MIGRATIONS = [
  `CREATE TABLE webhook_replay (
     keyid TEXT NOT NULL,
     nonce TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (keyid, nonce)
   ) WITHOUT ROWID;
   CREATE INDEX webhook_replay_expiry ON webhook_replay (keyid, expires_at);
   CREATE TABLE webhook_replay_counts (keyid TEXT PRIMARY KEY, live INTEGER NOT NULL) WITHOUT ROWID;`,
] as const;

export type SqliteReplayOutcome = 'recorded' | 'replayed' | 'rate_abuse';

/**
 * The RFC 9421 `(keyid, nonce)` replay cache on SQLite, for several receiver processes on one
 * host (it has the shape of `ReplayStore` in `adcp-wire/webhooks`). Expired entries are purged per
 * keyid as new ones arrive; a per-keyid count keeps the cap check O(1). A full cache answers
 * `rate_abuse`, never evicts live entries.
 */
export class SqliteReplayStore {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #writes: SqliteWriteBatcher;
  readonly #perKeyidCap: number;
  readonly #aggregateCap: number;
  readonly #live;
  readonly #record: (keyid: string, nonce: string, expiresAt: number, now: number) => SqliteReplayOutcome;
  readonly #purge: (keyid: string, now: number) => void;

  constructor(options: SqliteStoreOptions & { perKeyidCap?: number; aggregateCap?: number }) {
    const { db, owned } = openSqliteDatabase(options);
    this.#db = db;
    this.#owned = owned;
    this.#writes = writeBatcherFor(db);
    this.#perKeyidCap = options.perKeyidCap ?? 100_000;
    this.#aggregateCap = options.aggregateCap ?? 1_000_000;
    migrateSqlite(db, 'webhook_replay', MIGRATIONS);
    this.#live = db.prepare('SELECT live FROM webhook_replay_counts WHERE keyid = ?').pluck();
    const total = db.prepare('SELECT COALESCE(SUM(live), 0) FROM webhook_replay_counts').pluck();
    const seen = db.prepare('SELECT expires_at FROM webhook_replay WHERE keyid = ? AND nonce = ?').pluck();
    const expire = db.prepare('DELETE FROM webhook_replay WHERE keyid = ? AND expires_at <= ?');
    const count = db.prepare(
      'INSERT INTO webhook_replay_counts (keyid, live) VALUES (?, ?) ON CONFLICT (keyid) DO UPDATE SET live = live + excluded.live',
    );
    const insert = db.prepare('INSERT INTO webhook_replay (keyid, nonce, expires_at) VALUES (?, ?, ?)');
    this.#purge = (keyid, now) => {
      const removed = expire.run(keyid, now).changes;
      if (removed > 0) count.run(keyid, -removed);
    };
    this.#record = db.transaction(
      (keyid: string, nonce: string, expiresAt: number, now: number): SqliteReplayOutcome => {
        const previous = seen.get(keyid, nonce) as number | undefined;
        if (previous !== undefined && previous > now) return 'replayed';
        this.#purge(keyid, now);
        const live = (this.#live.get(keyid) as number | undefined) ?? 0;
        if (live >= this.#perKeyidCap || (total.get() as number) >= this.#aggregateCap) return 'rate_abuse';
        insert.run(keyid, nonce, expiresAt);
        count.run(keyid, 1);
        return 'recorded';
      },
    );
  }

  async isAtCapacity(keyid: string, nowSeconds: number): Promise<boolean> {
    if (((this.#live.get(keyid) as number | undefined) ?? 0) < this.#perKeyidCap) return false;
    return this.#writes.run(() => {
      this.#purge(keyid, nowSeconds);
      return ((this.#live.get(keyid) as number | undefined) ?? 0) >= this.#perKeyidCap;
    });
  }

  async record(
    keyid: string,
    nonce: string,
    expiresAtSeconds: number,
    nowSeconds: number,
  ): Promise<SqliteReplayOutcome> {
    return this.#writes.run(() => this.#record(keyid, nonce, expiresAtSeconds, nowSeconds));
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    await this.#writes.run(() => undefined);
    if (this.#owned && this.#db.open) this.#db.close();
  }
}
