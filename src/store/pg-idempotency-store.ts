import { ClaimIdempotencyStore, IDEMPOTENCY_POLICY } from './claim-uses.js';
import { PgClaimStore, type PgClaimTable } from './pg-claim-store.js';
import type { PgStoreOptions } from './pg-database.js';

/** Table `adcp_idempotency` (./pg-migrations.ts): a row is completed once it holds its `response`. */
const SELLER_IDEMPOTENCY: PgClaimTable = {
  name: 'adcp_idempotency',
  label: 'idempotency',
  fingerprint: 'payload_hash',
  inFlightColumns: { names: '', values: '' },
  done: (c) => `${c}.response IS NOT NULL`,
  setInFlight: 'response = NULL',
  setDone: 'response = $5',
  result: 'response',
  noExpiry: '0',
  policy: IDEMPOTENCY_POLICY,
};

/** The shared `IdempotencyStore` (`adcp_idempotency`): every instance of a seller fleet sees one replay window. */
export class PgIdempotencyStore extends ClaimIdempotencyStore {
  readonly #store: PgClaimStore;

  constructor(options: PgStoreOptions) {
    const store = new PgClaimStore(options, SELLER_IDEMPOTENCY);
    super(store);
    this.#store = store;
  }

  /** Throws when the database cannot be reached now (readiness). */
  ping(): Promise<void> {
    return this.#store.ping();
  }
}
