import { ClaimDedupStore, DEDUP_POLICY } from './claim-uses.js';
import { SqliteClaimStore, type SqliteClaimTable } from './sqlite-claim-store.js';
import type { SqliteStoreOptions } from './sqlite-options.js';

/** Table `webhook_dedup`: `state` says in flight (`processing`) or completed (`done`). */
const WEBHOOK_DEDUP: SqliteClaimTable = {
  name: 'webhook_dedup',
  migrations: [
    `CREATE TABLE webhook_dedup (
       scope TEXT NOT NULL,
       key TEXT NOT NULL,
       state TEXT NOT NULL CHECK (state IN ('processing', 'done')),
       token TEXT NOT NULL,
       lease_expires_at INTEGER NOT NULL,
       expires_at INTEGER,
       fingerprint TEXT,
       PRIMARY KEY (scope, key)
     ) WITHOUT ROWID;
     CREATE INDEX webhook_dedup_expiry ON webhook_dedup (expires_at) WHERE state = 'done';`,
  ],
  fingerprint: 'fingerprint',
  inFlightColumns: { names: ', state', values: ", 'processing'" },
  done: "state = 'done'",
  setInFlight: "state = 'processing'",
  setDone: "state = 'done'",
  result: undefined,
  noExpiry: 'NULL',
  policy: DEDUP_POLICY,
  // Concurrent deliveries share one WAL commit instead of paying one each.
  groupCommit: true,
};

/**
 * The embedded `DedupStore`: the claim machine (`SqliteClaimStore`) on table `webhook_dedup`, so
 * concurrent claims from any number of connections or processes on the same file yield exactly
 * one `claimed`. Writes go through the connection's group-commit queue.
 */
export class SqliteDedupStore extends ClaimDedupStore {
  readonly #store: SqliteClaimStore;

  constructor(options: SqliteStoreOptions) {
    const store = new SqliteClaimStore(options, WEBHOOK_DEDUP);
    super(store);
    this.#store = store;
  }

  /**
   * `complete`, synchronously, so it can run inside the caller's own `db.transaction()` on the
   * shared connection: the webhook handler's side effect and the key's completion commit
   * together, and a crash can neither lose the event nor let a redelivery apply it twice.
   */
  completeSync(scope: string, key: string, token: string, options: { ttlMs: number; now?: number }): boolean {
    return this.#store.completeSync(scope, key, token, options);
  }
}
