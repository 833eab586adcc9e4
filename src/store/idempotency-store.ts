/**
 * A seller's idempotency replay store (security.md, "Idempotency", rules 2-9): one row per
 * (scope, key), where the scope is the authenticated principal. The first request to insert the
 * row owns execution; the row keeps the hash of the canonical payload from that moment, so a
 * racing request with another payload is a conflict at once and one with the same payload waits
 * for (or replays) the stored response.
 *
 * Implementations: ./memory-idempotency-store.ts, ./sqlite-idempotency-store.ts,
 * ./pg-idempotency-store.ts, each the one claim machine of ./claim-store.ts (shared with webhook
 * dedup) on its backend; all pass test/store/idempotency-contract.ts. `claim` is one atomic
 * statement in each (insert, never check-then-insert).
 */

export type IdempotencyClaim =
  /** This request inserted (or took over) the row: run the handler, then `complete` or `release`. */
  | { kind: 'claimed'; token: string }
  /** A finished request stored this response; `token` names that entry for `reclaim`. */
  | { kind: 'replay'; response: unknown; token: string }
  /** The first request with this payload is still running (its lease is live). */
  | { kind: 'in_flight'; leaseExpiresAt: number }
  /** The key is bound to a different payload hash. Nothing of the stored entry is returned. */
  | { kind: 'conflict' }
  /**
   * The key's response was stored and its replay window has passed (security.md, rule 6: answer
   * IDEMPOTENCY_EXPIRED rather than run it again). Kept so for `expiredForMs` past the window.
   */
  | { kind: 'expired' };

/** How long past its replay window a finished key still answers `expired` before it is forgotten. */
export const DEFAULT_EXPIRED_KEPT_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyClaimOptions {
  /** SHA-256 (hex) of the canonical payload; compared on every claim. */
  payloadHash: string;
  /**
   * How long the in-flight row is held for this request (its handler's time budget). A row whose
   * holder died is taken over after it, by a request with the same payload.
   */
  leaseMs: number;
  /** How long past its window a finished key answers `expired`. Default `DEFAULT_EXPIRED_KEPT_MS`. */
  expiredForMs?: number;
  /**
   * The `ttlMs` its `complete` will pass, when known. A store may then write the entry's expiry
   * with the claim (now + `leaseMs` + `ttlMs`, so at least `ttlMs` after an answer stored within
   * the lease, at most `leaseMs` more) and store the answer without rewriting it. The stores of
   * this library write it when the answer is stored.
   */
  ttlMs?: number;
  now?: number;
}

export interface IdempotencyCompleteOptions {
  /** The response to replay for this key (stored as JSON). */
  response: unknown;
  /**
   * How long the response answers for its key: at least `ttlMs` from now, and at most the claim's
   * `leaseMs` longer when the claim passed `ttlMs` too.
   */
  ttlMs: number;
  now?: number;
}

export interface IdempotencyReclaimOptions {
  /** How long the new in-flight row is held (as in `IdempotencyClaimOptions.leaseMs`). */
  leaseMs: number;
  now?: number;
}

export interface IdempotencyStore {
  claim(scope: string, key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim>;
  /**
   * Stores the response of a successful request under the claim's token, kept `ttlMs`. False when
   * the claim was lost (its lease lapsed and another request took the key).
   */
  complete(scope: string, key: string, token: string, options: IdempotencyCompleteOptions): Promise<boolean>;
  /** Gives an in-flight claim up (the request failed): the key is unseen again. */
  release(scope: string, key: string, token: string): Promise<void>;
  /**
   * Takes a finished entry back for a new execution, only if it is still the entry `token` names
   * (one of several racing callers wins): used when the stored answer turned out to be a
   * transient failure that must not be replayed. Undefined when another caller got there first.
   */
  reclaim(
    scope: string,
    key: string,
    token: string,
    options: IdempotencyReclaimOptions,
  ): Promise<{ kind: 'claimed'; token: string } | undefined>;
  /**
   * Deletes entries past their TTL plus `expiredForMs` (default `DEFAULT_EXPIRED_KEPT_MS`), and
   * in-flight claims past their lease. Returns how many.
   */
  sweep(now?: number, options?: { expiredForMs?: number }): Promise<number>;
  /** Throws when the store cannot be reached now (readiness); absent on a store that is always reachable. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
