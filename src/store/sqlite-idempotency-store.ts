import { ClaimIdempotencyStore, IDEMPOTENCY_POLICY } from './claim-uses.js';
import { SqliteClaimStore, type SqliteClaimTable } from './sqlite-claim-store.js';
import type { SqliteStoreOptions } from './sqlite-options.js';

/** Table `seller_idempotency`: a row is completed once it holds its `response`. */
const SELLER_IDEMPOTENCY: SqliteClaimTable = {
  name: 'seller_idempotency',
  migrations: [
    `CREATE TABLE seller_idempotency (
       scope TEXT NOT NULL,
       key TEXT NOT NULL,
       payload_hash TEXT NOT NULL,
       token TEXT NOT NULL,
       response TEXT,
       lease_expires_at INTEGER NOT NULL,
       expires_at INTEGER NOT NULL,
       PRIMARY KEY (scope, key)
     ) WITHOUT ROWID;
     CREATE INDEX seller_idempotency_expiry ON seller_idempotency (expires_at);`,
    // The sweep's OR over `lease_expires_at` (not indexed) scans the table whatever this index, so it
    // served no query and cost every claim a second page in its commit (bench/results/idempotency.md).
    `DROP INDEX IF EXISTS seller_idempotency_expiry;`,
  ],
  fingerprint: 'payload_hash',
  inFlightColumns: { names: '', values: '' },
  done: 'response IS NOT NULL',
  setInFlight: 'response = NULL',
  setDone: 'response = ?',
  result: 'response',
  noExpiry: '0',
  policy: IDEMPOTENCY_POLICY,
  groupCommit: false,
};

/** The embedded `IdempotencyStore`: the claim machine on table `seller_idempotency`, durable across restarts. */
export class SqliteIdempotencyStore extends ClaimIdempotencyStore {
  constructor(options: SqliteStoreOptions) {
    super(new SqliteClaimStore(options, SELLER_IDEMPOTENCY));
  }
}
