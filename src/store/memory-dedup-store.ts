import { ClaimDedupStore, DEDUP_POLICY } from './claim-uses.js';
import { MemoryClaimStore } from './memory-claim-store.js';

/**
 * An in-process `DedupStore` for tests and single-process buyers that accept losing dedup state
 * on restart. Same semantics as the SQLite and PostgreSQL stores (see `test/store/dedup-contract.ts`).
 */
export class MemoryDedupStore extends ClaimDedupStore {
  constructor() {
    super(new MemoryClaimStore(DEDUP_POLICY));
  }
}
