import type { JsonObject } from '../core/types.js';
import type { KitKind, KitRecord, KitRecords } from '../kit/records.js';
import type { FixtureKind, SellerDb } from './seller-db.js';

/** The version the kit's compare-and-set reads, kept in the body (SellerDb has no version column). */
const VERSION = 'kit_version';

function split(body: JsonObject): { body: JsonObject; version: number } {
  const { [VERSION]: version, kit_id: _id, media_buy_status: _status, ...rest } = body;
  return { body: rest, version: typeof version === 'number' ? version : 1 };
}

/**
 * The kit's records over the reference seller's own state (SellerDb: SQLite or PostgreSQL), so the
 * kit's tools (update_media_buy, accounts, governance, feedback) and the seller's own tools
 * (create_media_buy, sync_creatives, get_media_buys) see the same media buys and creatives.
 * Media buys and creatives are the seller's tables; every other kind is a sandbox-fixture row of
 * its own kind (`kit:<kind>`). A write checks the version it read, then writes: one statement
 * after another on one SQLite connection (no await between them), not atomic across a PostgreSQL
 * fleet (two instances updating one buy at the same moment may both succeed).
 */
export function sellerKitRecords(db: SellerDb, now: () => number): KitRecords {
  const fixtureKind = (kind: KitKind): FixtureKind => `kit:${kind}`;
  const read = async (principal: string, kind: KitKind, id: string): Promise<JsonObject | undefined> => {
    if (kind === 'media_buy') {
      const buy = await db.getMediaBuy(principal, id);
      // The seller's async path stores no status: a confirmed buy it did not force is active.
      return buy === undefined ? undefined : { status: 'active', currency: 'USD', ...buy.body };
    }
    if (kind === 'creative') return await db.getCreative(principal, id);
    return await db.getFixture(principal, fixtureKind(kind), id);
  };
  return {
    async get(principal, kind, id) {
      const body = await read(principal, kind, id);
      return body === undefined ? undefined : { id, ...split(body) };
    },
    async put(principal, kind, id, body, expected) {
      const current = await read(principal, kind, id);
      if ((current === undefined ? 0 : split(current).version) !== expected) return false;
      const stored = { ...body, [VERSION]: expected + 1 };
      if (kind === 'media_buy') {
        const createdAt = (await db.getMediaBuy(principal, id))?.createdAt ?? now();
        await db.saveMediaBuy(principal, id, stored, createdAt);
      } else if (kind === 'creative') await db.upsertCreative(principal, id, stored, now());
      else await db.putFixture(principal, fixtureKind(kind), id, { ...stored, kit_id: id });
      return true;
    },
    async list(principal, kind, limit = 1000) {
      let rows: KitRecord[];
      if (kind === 'media_buy') {
        rows = (await db.listMediaBuys(principal)).map((b) => ({
          id: b.id,
          ...split({ status: 'active', currency: 'USD', ...b.body }),
        }));
      } else if (kind === 'creative') {
        rows = (await db.allCreatives(principal)).map((c) => ({ id: String(c.creative_id), ...split(c) }));
      } else {
        // Fixture rows carry no id column in their body: the kit's kinds keep theirs in `kit_id`.
        rows = (await db.listFixtures(principal, fixtureKind(kind))).map((f) => ({
          id: String(f.kit_id),
          ...split(f),
        }));
      }
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, limit);
    },
    async close() {},
  };
}
