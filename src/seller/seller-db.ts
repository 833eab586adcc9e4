import { openSqliteFile } from '../store/sqlite-database.js';
import type { JsonObject } from '../core/types.js';

/** What the sandbox controller keeps: seeded products, simulated delivery and spend per media buy. */
/** `kit:<kind>`: the media-buy kit's entities kept here (seller-kit-records.ts). */
export type FixtureKind = 'product' | 'delivery' | 'spend' | `kit:${string}`;

/** The reference seller's own state (media buys, creatives), per principal. */
export interface SellerDb {
  saveMediaBuy(principal: string, mediaBuyId: string, body: JsonObject, now: number): Promise<void>;
  getMediaBuy(principal: string, mediaBuyId: string): Promise<{ body: JsonObject; createdAt: number } | undefined>;
  listMediaBuys(principal: string): Promise<{ id: string; body: JsonObject; createdAt: number }[]>;
  /** Inserts or replaces a creative; returns whether it existed. */
  upsertCreative(principal: string, creativeId: string, body: JsonObject, now: number): Promise<'created' | 'updated'>;
  getCreative(principal: string, creativeId: string): Promise<JsonObject | undefined>;
  /** Every creative of the principal, by creative_id (the paging order). */
  allCreatives(principal: string): Promise<JsonObject[]>;
  /** Sandbox state (`comply_test_controller`): seeded products, delivery and spend, by kind and id. */
  getFixture(principal: string, kind: FixtureKind, id: string): Promise<JsonObject | undefined>;
  putFixture(principal: string, kind: FixtureKind, id: string, body: JsonObject): Promise<void>;
  listFixtures(principal: string, kind: FixtureKind): Promise<JsonObject[]>;
  close(): Promise<void>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS seller_media_buys (
  principal TEXT NOT NULL, media_buy_id TEXT NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (principal, media_buy_id));
CREATE TABLE IF NOT EXISTS seller_creatives (
  principal TEXT NOT NULL, creative_id TEXT NOT NULL, body TEXT NOT NULL, updated_at INTEGER NOT NULL,
  PRIMARY KEY (principal, creative_id));
CREATE TABLE IF NOT EXISTS seller_fixtures (
  principal TEXT NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (principal, kind, id));
`;

/** Opens (creating if needed) the seller's SQLite file, WAL mode (pg-seller-db.ts: the fleet's). */
export function openSellerDb(path: string): SellerDb {
  const db = openSqliteFile(path, 'The reference seller');
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  const parse = (text: string) => JSON.parse(text) as JsonObject;
  return {
    async saveMediaBuy(principal, id, body, now) {
      db.prepare('INSERT OR REPLACE INTO seller_media_buys VALUES (?, ?, ?, ?)').run(
        principal,
        id,
        JSON.stringify(body),
        now,
      );
    },
    async getMediaBuy(principal, id) {
      const row = db
        .prepare<[string, string], { body: string; created_at: number }>(
          'SELECT body, created_at FROM seller_media_buys WHERE principal = ? AND media_buy_id = ?',
        )
        .get(principal, id);
      return row === undefined ? undefined : { body: parse(row.body), createdAt: row.created_at };
    },
    async listMediaBuys(principal) {
      return db
        .prepare<[string], { media_buy_id: string; body: string; created_at: number }>(
          'SELECT media_buy_id, body, created_at FROM seller_media_buys WHERE principal = ? ORDER BY created_at, media_buy_id LIMIT 1000',
        )
        .all(principal)
        .map((r) => ({ id: r.media_buy_id, body: parse(r.body), createdAt: r.created_at }));
    },
    async upsertCreative(principal, id, body, now) {
      const existed =
        db.prepare('SELECT 1 FROM seller_creatives WHERE principal = ? AND creative_id = ?').get(principal, id) !==
        undefined;
      db.prepare('INSERT OR REPLACE INTO seller_creatives VALUES (?, ?, ?, ?)').run(
        principal,
        id,
        JSON.stringify(body),
        now,
      );
      return existed ? 'updated' : 'created';
    },
    async getCreative(principal, id) {
      const row = db
        .prepare<[string, string], { body: string }>(
          'SELECT body FROM seller_creatives WHERE principal = ? AND creative_id = ?',
        )
        .get(principal, id);
      return row === undefined ? undefined : parse(row.body);
    },
    async allCreatives(principal) {
      return db
        .prepare<[string], { body: string }>(
          'SELECT body FROM seller_creatives WHERE principal = ? ORDER BY creative_id LIMIT 10000',
        )
        .all(principal)
        .map((r) => parse(r.body));
    },
    async getFixture(principal, kind, id) {
      const row = db
        .prepare<[string, string, string], { body: string }>(
          'SELECT body FROM seller_fixtures WHERE principal = ? AND kind = ? AND id = ?',
        )
        .get(principal, kind, id);
      return row === undefined ? undefined : parse(row.body);
    },
    async putFixture(principal, kind, id, body) {
      db.prepare('INSERT OR REPLACE INTO seller_fixtures VALUES (?, ?, ?, ?)').run(
        principal,
        kind,
        id,
        JSON.stringify(body),
      );
    },
    async listFixtures(principal, kind) {
      return db
        .prepare<[string, string], { body: string }>(
          'SELECT body FROM seller_fixtures WHERE principal = ? AND kind = ? ORDER BY id LIMIT 1000',
        )
        .all(principal, kind)
        .map((r) => parse(r.body));
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
