/**
 * The one claim / complete state machine behind webhook de-duplication (`DedupStore`) and a
 * seller's idempotency replay store (`IdempotencyStore`): one row per (scope, key) that a caller
 * claims (insert, never check-then-insert) with a lease, then completes (kept `ttlMs`, with a
 * result) or releases (the key is unseen again). Implementations: ./memory-claim-store.ts,
 * ./sqlite-claim-store.ts, ./pg-claim-store.ts; the two uses are expressed on it in
 * ./claim-uses.ts. The rules of a claim are `judgeClaim` below, in one place; the SQL stores
 * repeat its "take" condition in their claim statement (atomicity) and ask `judgeClaim` why a
 * claim was refused.
 */

/** The two ways the uses differ, fixed per store. */
export interface ClaimPolicy {
  /**
   * A lease that lapsed without `complete` (its holder died) releases the key: any payload may
   * claim it and a sweep removes it (idempotency: security.md, rule 3, "MUST release the row when
   * that timeout fires"). When false (webhook dedup), the lapsed row keeps its fingerprint: only
   * a claim with the same or no fingerprint takes it over, and a sweep keeps it.
   */
  readonly lapsedLeaseReleases: boolean;
}

export type Claim =
  /** This caller holds the key now and must `complete` or `release` it. */
  | { kind: 'claimed'; token: string }
  /** Completed within its TTL: `result` as stored (text), `token` names the entry for `reclaim`. */
  | { kind: 'done'; token: string; result: string | undefined }
  /** Another caller holds a live lease. */
  | { kind: 'busy'; leaseExpiresAt: number }
  /** The key is bound to another fingerprint. */
  | { kind: 'conflict' }
  /** Completed, its TTL passed, and still kept (`keptMs` after the TTL). */
  | { kind: 'expired' };

export interface ClaimOptions {
  leaseMs: number;
  now?: number;
  /** Bound to the key on its first claim; a claim with another one is a `conflict`. */
  fingerprint?: string;
  /** How long past its TTL a completed key answers `expired` before it is forgotten (default 0). */
  keptMs?: number;
}

export interface ClaimStore {
  claim(scope: string, key: string, options: ClaimOptions): Promise<Claim>;
  /** Completes a claim the caller still holds, kept `ttlMs` with `result`; false when it was lost. */
  complete(
    scope: string,
    key: string,
    token: string,
    options: { ttlMs: number; now?: number; result?: string },
  ): Promise<boolean>;
  /** Gives a held claim up: the key is unseen again. */
  release(scope: string, key: string, token: string): Promise<void>;
  /** Takes a completed entry back, only while `token` still names it. */
  reclaim(
    scope: string,
    key: string,
    token: string,
    options: { leaseMs: number; now?: number },
  ): Promise<{ kind: 'claimed'; token: string } | undefined>;
  /** Deletes what no longer answers for its key (see `isLive`). Returns how many rows. */
  sweep(now?: number, options?: { keptMs?: number }): Promise<number>;
  close(): Promise<void>;
}

/** A stored claim, as every backend reads it. */
export interface ClaimRow {
  done: boolean;
  token: string;
  fingerprint: string | undefined;
  leaseExpiresAt: number;
  /** When a completed row's TTL ends (meaningless while in flight). */
  expiresAt: number;
  result: string | undefined;
}

/** True while the row answers for its key; a row that does not is taken over or swept. */
export function isLive(row: ClaimRow, now: number, keptMs: number, policy: ClaimPolicy): boolean {
  if (row.done) return row.expiresAt + keptMs > now;
  return row.leaseExpiresAt > now || !policy.lapsedLeaseReleases;
}

/**
 * What a claim of a key whose row is `row` gets: `take` (write a new lease, binding
 * `fingerprint`), or the outcome that refuses it. In order: a dead row is taken; a completed row
 * past its TTL is `expired`; another fingerprint is a `conflict`; a completed row is `done`; a
 * live lease is `busy`; a lapsed lease (kept by the policy) is taken with its first fingerprint.
 */
export function judgeClaim(
  row: ClaimRow | undefined,
  request: { now: number; fingerprint: string | undefined; keptMs: number },
  policy: ClaimPolicy,
): { kind: 'take'; fingerprint: string | undefined } | Exclude<Claim, { kind: 'claimed' }> {
  const { now, fingerprint } = request;
  if (row === undefined || !isLive(row, now, request.keptMs, policy)) return { kind: 'take', fingerprint };
  if (row.done && row.expiresAt <= now) return { kind: 'expired' };
  if (row.fingerprint !== undefined && fingerprint !== undefined && row.fingerprint !== fingerprint)
    return { kind: 'conflict' };
  if (row.done) return { kind: 'done', token: row.token, result: row.result };
  if (row.leaseExpiresAt > now) return { kind: 'busy', leaseExpiresAt: row.leaseExpiresAt };
  return { kind: 'take', fingerprint: row.fingerprint ?? fingerprint };
}

/** Rounds a claim may take when its row changes between the claim statement and the read. */
export const CLAIM_ATTEMPTS = 5;
