import type { JsonObject } from '../core/types.js';
import type { PgDatabase } from '../store/pg-database.js';
import { toMs } from '../store/pg-database.js';
import type { SellerDb } from './seller-db.js';

const parse = (text: string) => JSON.parse(text) as JsonObject;

/**
 * The reference seller's state in PostgreSQL (`adcp_seller_*`, migration "reference seller
 * state"), so every `adcp serve --store-url postgres://...` of a fleet sees the same media buys,
 * creatives and sandbox fixtures. Each write is one statement; the database is the caller's.
 */
export function openPgSellerDb(db: PgDatabase): SellerDb {
  return {
    async saveMediaBuy(principal, id, body, now) {
      await db.query(
        'seller media buy save',
        `INSERT INTO adcp_seller_media_buys (principal, media_buy_id, body, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (principal, media_buy_id) DO UPDATE SET body = excluded.body, created_at = excluded.created_at`,
        [principal, id, JSON.stringify(body), now],
      );
    },
    async getMediaBuy(principal, id) {
      const { rows } = await db.query<{ body: string; created_at: string }>(
        'seller media buy get',
        'SELECT body, created_at FROM adcp_seller_media_buys WHERE principal = $1 AND media_buy_id = $2',
        [principal, id],
      );
      const row = rows[0];
      return row === undefined ? undefined : { body: parse(row.body), createdAt: toMs(row.created_at) };
    },
    async listMediaBuys(principal) {
      const { rows } = await db.query<{ media_buy_id: string; body: string; created_at: string }>(
        'seller media buy list',
        `SELECT media_buy_id, body, created_at FROM adcp_seller_media_buys WHERE principal = $1
         ORDER BY created_at, media_buy_id LIMIT 1000`,
        [principal],
      );
      return rows.map((r) => ({ id: r.media_buy_id, body: parse(r.body), createdAt: toMs(r.created_at) }));
    },
    async upsertCreative(principal, id, body, now) {
      // xmax is 0 on a freshly inserted row version, not on one the conflict updated.
      const { rows } = await db.query<{ inserted: boolean }>(
        'seller creative upsert',
        `INSERT INTO adcp_seller_creatives (principal, creative_id, body, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (principal, creative_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
         RETURNING (xmax = 0) AS inserted`,
        [principal, id, JSON.stringify(body), now],
      );
      return rows[0]?.inserted === true ? 'created' : 'updated';
    },
    async getCreative(principal, id) {
      const { rows } = await db.query<{ body: string }>(
        'seller creative get',
        'SELECT body FROM adcp_seller_creatives WHERE principal = $1 AND creative_id = $2',
        [principal, id],
      );
      return rows[0] === undefined ? undefined : parse(rows[0].body);
    },
    async allCreatives(principal) {
      const { rows } = await db.query<{ body: string }>(
        'seller creative list',
        'SELECT body FROM adcp_seller_creatives WHERE principal = $1 ORDER BY creative_id LIMIT 10000',
        [principal],
      );
      return rows.map((r) => parse(r.body));
    },
    async getFixture(principal, kind, id) {
      const { rows } = await db.query<{ body: string }>(
        'seller fixture get',
        'SELECT body FROM adcp_seller_fixtures WHERE principal = $1 AND kind = $2 AND id = $3',
        [principal, kind, id],
      );
      return rows[0] === undefined ? undefined : parse(rows[0].body);
    },
    async putFixture(principal, kind, id, body) {
      await db.query(
        'seller fixture put',
        `INSERT INTO adcp_seller_fixtures (principal, kind, id, body) VALUES ($1, $2, $3, $4)
         ON CONFLICT (principal, kind, id) DO UPDATE SET body = excluded.body`,
        [principal, kind, id, JSON.stringify(body)],
      );
    },
    async listFixtures(principal, kind) {
      const { rows } = await db.query<{ body: string }>(
        'seller fixture list',
        'SELECT body FROM adcp_seller_fixtures WHERE principal = $1 AND kind = $2 ORDER BY id LIMIT 1000',
        [principal, kind],
      );
      return rows.map((r) => parse(r.body));
    },
    async close() {
      // The database belongs to the stores it was opened with.
    },
  };
}
