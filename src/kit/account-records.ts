import type { JsonObject } from '../core/types.js';
import type { KitKind, KitRecord, KitRecords } from './records.js';

/**
 * What a buyer syncs into an account (sync-catalogs-request.json: "Account that owns these
 * catalogs"; sync_audiences, sync_event_sources alike) and the events logged against its sources
 * belong to that account: each is kept under the account id and the buyer's id together, so one
 * principal's two accounts may use the same id for two records, and a listing or `delete_missing`
 * in one account never sees another's (decision 0321).
 */
export type AccountKind = Extract<KitKind, 'catalog' | 'audience' | 'event_source' | 'event'>;

/** The stored id of `id` in `accountId`: a JSON pair, so no account or id can forge another's key. */
const storedId = (accountId: string, id: string): string => JSON.stringify([accountId, id]);

/** The account and the buyer's id a stored id holds, or undefined for a key of another shape. */
function pairOf(stored: string): [string, string] | undefined {
  if (!stored.startsWith('[')) return undefined;
  try {
    const pair: unknown = JSON.parse(stored);
    return Array.isArray(pair) && pair.length === 2 && pair.every((p) => typeof p === 'string')
      ? (pair as [string, string])
      : undefined;
  } catch {
    return undefined;
  }
}

/** One account's records of one kind; every `KitRecord.id` here is the buyer's id. */
export interface AccountRecords {
  get(id: string): Promise<KitRecord | undefined>;
  /** As `KitRecords.put`: written when the stored version is `expected` (0: none yet). */
  put(id: string, body: JsonObject, expected: number): Promise<boolean>;
  /** The account's records of the kind (tombstones included), by id. */
  list(): Promise<KitRecord[]>;
}

export function accountRecords(
  records: KitRecords,
  principal: string,
  kind: AccountKind,
  accountId: string,
): AccountRecords {
  return {
    async get(id) {
      const found = await records.get(principal, kind, storedId(accountId, id));
      return found === undefined ? undefined : { ...found, id };
    },
    put: (id, body, expected) => records.put(principal, kind, storedId(accountId, id), body, expected),
    async list() {
      return (await records.list(principal, kind)).flatMap((r) => {
        const pair = pairOf(r.id);
        return pair !== undefined && pair[0] === accountId ? [{ ...r, id: pair[1] }] : [];
      });
    },
  };
}

/** The principal's accounts that hold a record `id` of `kind` which `live` accepts, by account id. */
export async function accountsHolding(
  records: KitRecords,
  principal: string,
  kind: AccountKind,
  id: string,
  live: (record: KitRecord) => boolean,
): Promise<string[]> {
  const found: string[] = [];
  for (const r of await records.list(principal, kind)) {
    const pair = pairOf(r.id);
    if (pair !== undefined && pair[1] === id && live(r)) found.push(pair[0]);
  }
  return found;
}
