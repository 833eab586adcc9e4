import type { JsonObject } from '../core/types.js';
import type { PgDatabase } from '../store/pg-database.js';
import type { KitKind, KitRecord, KitRecords } from './records.js';

/**
 * The kit's state in PostgreSQL (`adcp_kit_records`, migration "media-buy kit records"), so every
 * instance of a fleet sees the same accounts, media buys and creatives. Each write is one
 * compare-and-set statement on the version; the database is the caller's (closing this closes nothing).
 */
export class PgKitRecords implements KitRecords {
  readonly #db: PgDatabase;

  constructor(database: PgDatabase) {
    this.#db = database;
  }

  async get(principal: string, kind: KitKind, id: string): Promise<KitRecord | undefined> {
    const { rows } = await this.#db.query<{ body: string; version: number }>(
      'kit record get',
      'SELECT body, version FROM adcp_kit_records WHERE principal = $1 AND kind = $2 AND id = $3',
      [principal, kind, id],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : { id, body: JSON.parse(row.body) as JsonObject, version: Number(row.version) };
  }

  async put(principal: string, kind: KitKind, id: string, body: JsonObject, expected: number): Promise<boolean> {
    const text = JSON.stringify(body);
    const { rowCount } =
      expected === 0
        ? await this.#db.query(
            'kit record insert',
            `INSERT INTO adcp_kit_records (principal, kind, id, body, version) VALUES ($1, $2, $3, $4, 1)
             ON CONFLICT (principal, kind, id) DO NOTHING`,
            [principal, kind, id, text],
          )
        : await this.#db.query(
            'kit record update',
            `UPDATE adcp_kit_records SET body = $4, version = version + 1
             WHERE principal = $1 AND kind = $2 AND id = $3 AND version = $5`,
            [principal, kind, id, text, expected],
          );
    return rowCount === 1;
  }

  async list(principal: string, kind: KitKind, limit = 1000): Promise<KitRecord[]> {
    const { rows } = await this.#db.query<{ id: string; body: string; version: number }>(
      'kit record list',
      'SELECT id, body, version FROM adcp_kit_records WHERE principal = $1 AND kind = $2 ORDER BY id LIMIT $3',
      [principal, kind, limit],
    );
    return rows.map((r) => ({ id: r.id, body: JSON.parse(r.body) as JsonObject, version: Number(r.version) }));
  }

  async close(): Promise<void> {}
}
