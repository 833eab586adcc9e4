import { ClaimIdempotencyStore, IDEMPOTENCY_POLICY } from './claim-uses.js';
import { MemoryClaimStore } from './memory-claim-store.js';

/**
 * An in-process `IdempotencyStore` (tests, one short-lived process): the declared replay window
 * must not outlive the process (security.md, rule 6), so a real seller uses SQLite or PostgreSQL.
 */
export class MemoryIdempotencyStore extends ClaimIdempotencyStore {
  constructor() {
    super(new MemoryClaimStore(IDEMPOTENCY_POLICY));
  }
}
