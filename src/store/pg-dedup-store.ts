import type { ClaimAndAdvanceOutcome, ClaimAndAdvanceRequest } from './types.js';
import { ClaimDedupStore, DEDUP_POLICY } from './claim-uses.js';
import { PgClaimStore, type PgClaimTable } from './pg-claim-store.js';
import type { PgStoreOptions } from './pg-database.js';
import { pgDatabaseOf } from './pg-operation-store.js';
import { pgClaimAndAdvance } from './pg-claim-and-advance.js';
import { encodeKey } from './pg-key.js';

/** Table `adcp_webhook_dedup` (./pg-migrations.ts): `state` says `processing` or `done`. */
const WEBHOOK_DEDUP: PgClaimTable = {
  name: 'adcp_webhook_dedup',
  label: 'dedup',
  fingerprint: 'fingerprint',
  inFlightColumns: { names: ', state', values: ", 'processing'" },
  done: (c) => `${c}.state = 'done'`,
  setInFlight: "state = 'processing'",
  setDone: "state = 'done'",
  result: undefined,
  noExpiry: 'NULL',
  policy: DEDUP_POLICY,
};

/**
 * The shared `DedupStore`: the claim machine (`PgClaimStore`) on `adcp_webhook_dedup`, so any
 * number of processes claiming one key get exactly one `claimed`.
 */
export class PgDedupStore extends ClaimDedupStore {
  readonly #store: PgClaimStore;

  constructor(options: PgStoreOptions) {
    const store = new PgClaimStore(options, WEBHOOK_DEDUP);
    super(store);
    this.#store = store;
  }

  /**
   * The claim and, only when it is taken, the operation's create-or-advance, in one statement,
   * when `request.operations` is a `PgOperationStore` on this store's `PgDatabase` (both opened
   * with `{ database }`, as `openStoresFromUrl` does); `undefined` otherwise.
   */
  async claimAndAdvance(request: ClaimAndAdvanceRequest): Promise<ClaimAndAdvanceOutcome | undefined> {
    const db = this.#store.database;
    if (pgDatabaseOf(request.operations) !== db) return undefined;
    return pgClaimAndAdvance(db, request, encodeKey(request.key));
  }

  /**
   * `complete`, inside the caller's own transaction (`client` has run `BEGIN`; for instance in
   * `PgDatabase.transaction`): the webhook handler's writes and the key's completion commit
   * together, so a crash can neither lose the event nor let a redelivery apply it twice. `false`
   * means this delivery no longer holds the key (its lease lapsed and another took it): roll back.
   */
  completeIn(
    client: { query(sql: string, values: unknown[]): Promise<{ rowCount: number | null }> },
    claim: { scope: string; key: string; token: string; ttlMs: number; now?: number },
  ): Promise<boolean> {
    return this.#store.completeIn(client, claim);
  }
}
