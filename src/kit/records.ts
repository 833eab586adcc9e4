import type { JsonObject } from '../core/types.js';
import { openSqliteDatabase } from '../store/sqlite-database.js';
import type { SqliteStoreOptions } from '../store/sqlite-options.js';

/** One stored entity of the kit: its body and a version that grows by one on each write. */
export interface KitRecord {
  id: string;
  body: JsonObject;
  version: number;
}

/** What the kit keeps: accounts, media buys, creatives, products seeded by the test controller, ... */
export type KitKind =
  | 'account'
  | 'media_buy'
  | 'creative'
  | 'product'
  | 'feedback'
  | 'delivery'
  | 'directive'
  | 'governance'
  | 'format'
  | 'proposal'
  | 'event_source'
  | 'event'
  | 'audience'
  | 'catalog';

/**
 * The media-buy kit's state, per principal (another principal's entity does not exist for a
 * caller). Writes are compare-and-set on the version, so two instances of a fleet (or two calls of
 * one) cannot both move the same media buy: the second is told it lost and reads again.
 */
export interface KitRecords {
  get(principal: string, kind: KitKind, id: string): Promise<KitRecord | undefined>;
  /**
   * Writes `body` when the stored version is `expected` (0: no record yet); returns false when
   * another write came first (nothing written).
   */
  put(principal: string, kind: KitKind, id: string, body: JsonObject, expected: number): Promise<boolean>;
  /** The principal's records of a kind, by id, at most `limit` (default 1000). */
  list(principal: string, kind: KitKind, limit?: number): Promise<KitRecord[]>;
  close(): Promise<void>;
}

const key = (principal: string, kind: string, id: string) => `${principal}\u0000${kind}\u0000${id}`;

/** The kit's state in this process (tests, demos): gone when it exits. */
export class MemoryKitRecords implements KitRecords {
  readonly #rows = new Map<string, { body: string; version: number }>();

  async get(principal: string, kind: KitKind, id: string): Promise<KitRecord | undefined> {
    const row = this.#rows.get(key(principal, kind, id));
    return row === undefined ? undefined : { id, body: JSON.parse(row.body) as JsonObject, version: row.version };
  }

  async put(principal: string, kind: KitKind, id: string, body: JsonObject, expected: number): Promise<boolean> {
    const k = key(principal, kind, id);
    if ((this.#rows.get(k)?.version ?? 0) !== expected) return false;
    this.#rows.set(k, { body: JSON.stringify(body), version: expected + 1 });
    return true;
  }

  async list(principal: string, kind: KitKind, limit = 1000): Promise<KitRecord[]> {
    const prefix = key(principal, kind, '');
    const found: KitRecord[] = [];
    for (const [k, row] of this.#rows) {
      if (!k.startsWith(prefix)) continue;
      found.push({ id: k.slice(prefix.length), body: JSON.parse(row.body) as JsonObject, version: row.version });
    }
    return found.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
  }

  async close(): Promise<void> {}
}

/** The kit's state in a SQLite file (table `adcp_kit_records`); several processes may share it. */
export class SqliteKitRecords implements KitRecords {
  readonly #db;
  readonly #owned: boolean;

  constructor(options: SqliteStoreOptions) {
    const { db, owned } = openSqliteDatabase(options);
    this.#db = db;
    this.#owned = owned;
    db.exec(`CREATE TABLE IF NOT EXISTS adcp_kit_records (
      principal TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
      version INTEGER NOT NULL, PRIMARY KEY (principal, kind, id))`);
  }

  async get(principal: string, kind: KitKind, id: string): Promise<KitRecord | undefined> {
    const row = this.#db
      .prepare<[string, string, string], { body: string; version: number }>(
        'SELECT body, version FROM adcp_kit_records WHERE principal = ? AND kind = ? AND id = ?',
      )
      .get(principal, kind, id);
    return row === undefined ? undefined : { id, body: JSON.parse(row.body) as JsonObject, version: row.version };
  }

  async put(principal: string, kind: KitKind, id: string, body: JsonObject, expected: number): Promise<boolean> {
    const text = JSON.stringify(body);
    const changes =
      expected === 0
        ? this.#db
            .prepare('INSERT INTO adcp_kit_records VALUES (?, ?, ?, ?, 1) ON CONFLICT (principal, kind, id) DO NOTHING')
            .run(principal, kind, id, text).changes
        : this.#db
            .prepare(
              'UPDATE adcp_kit_records SET body = ?, version = version + 1 WHERE principal = ? AND kind = ? AND id = ? AND version = ?',
            )
            .run(text, principal, kind, id, expected).changes;
    return changes === 1;
  }

  async list(principal: string, kind: KitKind, limit = 1000): Promise<KitRecord[]> {
    return this.#db
      .prepare<[string, string, number], { id: string; body: string; version: number }>(
        'SELECT id, body, version FROM adcp_kit_records WHERE principal = ? AND kind = ? ORDER BY id LIMIT ?',
      )
      .all(principal, kind, limit)
      .map((r) => ({ id: r.id, body: JSON.parse(r.body) as JsonObject, version: r.version }));
  }

  async close(): Promise<void> {
    if (this.#owned && this.#db.open) this.#db.close();
  }
}
