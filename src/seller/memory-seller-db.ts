import type { JsonObject } from '../core/types.js';
import type { FixtureKind, SellerDb } from './seller-db.js';

/**
 * The reference seller's state in process memory: what `openSellerDb(':memory:')` keeps, in the
 * same order and under the same caps, without the SQLite driver (`adcp serve` and `adcp demo`
 * with no `--db`, decision 0167). Bodies are stored as JSON text, so no caller shares an object.
 */
export function memorySellerDb(): SellerDb {
  const mediaBuys = new Map<string, { id: string; body: string; createdAt: number }>();
  const creatives = new Map<string, { id: string; body: string }>();
  const fixtures = new Map<string, { id: string; body: string }>();
  const key = (...parts: string[]) => JSON.stringify(parts);
  const parse = (text: string) => JSON.parse(text) as JsonObject;
  const ofPrincipal = <V extends { id: string }>(rows: Map<string, V>, prefix: string[]): V[] => {
    const head = key(...prefix).slice(0, -1);
    return [...rows].filter(([k]) => k.startsWith(`${head},`)).map(([, v]) => v);
  };
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return {
    async saveMediaBuy(principal, id, body, now) {
      mediaBuys.set(key(principal, id), { id, body: JSON.stringify(body), createdAt: now });
    },
    async getMediaBuy(principal, id) {
      const row = mediaBuys.get(key(principal, id));
      return row === undefined ? undefined : { body: parse(row.body), createdAt: row.createdAt };
    },
    async listMediaBuys(principal) {
      return ofPrincipal(mediaBuys, [principal])
        .sort((a, b) => a.createdAt - b.createdAt || byId(a, b))
        .slice(0, 1000)
        .map((r) => ({ id: r.id, body: parse(r.body), createdAt: r.createdAt }));
    },
    async upsertCreative(principal, id, body) {
      const existed = creatives.has(key(principal, id));
      creatives.set(key(principal, id), { id, body: JSON.stringify(body) });
      return existed ? 'updated' : 'created';
    },
    async getCreative(principal, id) {
      const row = creatives.get(key(principal, id));
      return row === undefined ? undefined : parse(row.body);
    },
    async allCreatives(principal) {
      return ofPrincipal(creatives, [principal])
        .sort(byId)
        .slice(0, 10_000)
        .map((r) => parse(r.body));
    },
    async getFixture(principal, kind: FixtureKind, id) {
      const row = fixtures.get(key(principal, kind, id));
      return row === undefined ? undefined : parse(row.body);
    },
    async putFixture(principal, kind: FixtureKind, id, body) {
      fixtures.set(key(principal, kind, id), { id, body: JSON.stringify(body) });
    },
    async listFixtures(principal, kind: FixtureKind) {
      return ofPrincipal(fixtures, [principal, kind])
        .sort(byId)
        .slice(0, 1000)
        .map((r) => parse(r.body));
    },
    async close() {
      mediaBuys.clear();
      creatives.clear();
      fixtures.clear();
    },
  };
}
