import type { Claim, ClaimPolicy, ClaimStore } from './claim-store.js';
import {
  DEFAULT_EXPIRED_KEPT_MS,
  type IdempotencyClaim,
  type IdempotencyClaimOptions,
  type IdempotencyCompleteOptions,
  type IdempotencyReclaimOptions,
  type IdempotencyStore,
} from './idempotency-store.js';
import type { ClaimOutcome, DedupStore } from './types.js';

/** Webhook dedup: a crashed holder's lapsed lease keeps its fingerprint; nothing is kept past the TTL. */
export const DEDUP_POLICY: ClaimPolicy = { lapsedLeaseReleases: false };
/** Idempotency: a lapsed lease is a released key (security.md, rule 3). */
export const IDEMPOTENCY_POLICY: ClaimPolicy = { lapsedLeaseReleases: true };

/** `DedupStore` on a `ClaimStore` with `DEDUP_POLICY`: completion stores no result. */
export class ClaimDedupStore implements DedupStore {
  protected readonly claims: ClaimStore;

  constructor(claims: ClaimStore) {
    this.claims = claims;
  }

  async claim(
    scope: string,
    key: string,
    options: { leaseMs: number; now?: number; fingerprint?: string },
  ): Promise<ClaimOutcome> {
    const claim = await this.claims.claim(scope, key, options);
    // `expired` cannot happen: nothing is kept past its TTL (keptMs 0).
    return claim.kind === 'done' || claim.kind === 'expired' ? { kind: 'done' } : claim;
  }

  complete(scope: string, key: string, token: string, options: { ttlMs: number; now?: number }): Promise<boolean> {
    return this.claims.complete(scope, key, token, options);
  }

  release(scope: string, key: string, token: string): Promise<void> {
    return this.claims.release(scope, key, token);
  }

  sweep(now?: number): Promise<number> {
    return this.claims.sweep(now);
  }

  close(): Promise<void> {
    return this.claims.close();
  }
}

/**
 * `IdempotencyStore` on a `ClaimStore` with `IDEMPOTENCY_POLICY`: the payload hash is the
 * fingerprint, the response is the result (as JSON text, replayed byte for byte on every backend).
 */
export class ClaimIdempotencyStore implements IdempotencyStore {
  protected readonly claims: ClaimStore;

  constructor(claims: ClaimStore) {
    this.claims = claims;
  }

  async claim(scope: string, key: string, options: IdempotencyClaimOptions): Promise<IdempotencyClaim> {
    const claim: Claim = await this.claims.claim(scope, key, {
      leaseMs: options.leaseMs,
      fingerprint: options.payloadHash,
      keptMs: options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    if (claim.kind === 'done')
      return { kind: 'replay', response: JSON.parse(claim.result ?? 'null') as unknown, token: claim.token };
    if (claim.kind === 'busy') return { kind: 'in_flight', leaseExpiresAt: claim.leaseExpiresAt };
    return claim;
  }

  complete(scope: string, key: string, token: string, options: IdempotencyCompleteOptions): Promise<boolean> {
    const result = JSON.stringify(options.response);
    if (result === undefined) throw new TypeError('idempotency store: a response is required');
    return this.claims.complete(scope, key, token, { ttlMs: options.ttlMs, result, ...nowOf(options) });
  }

  release(scope: string, key: string, token: string): Promise<void> {
    return this.claims.release(scope, key, token);
  }

  reclaim(
    scope: string,
    key: string,
    token: string,
    options: IdempotencyReclaimOptions,
  ): Promise<{ kind: 'claimed'; token: string } | undefined> {
    return this.claims.reclaim(scope, key, token, options);
  }

  sweep(now?: number, options: { expiredForMs?: number } = {}): Promise<number> {
    return this.claims.sweep(now, { keptMs: options.expiredForMs ?? DEFAULT_EXPIRED_KEPT_MS });
  }

  close(): Promise<void> {
    return this.claims.close();
  }
}

function nowOf(options: { now?: number }): { now?: number } {
  return options.now === undefined ? {} : { now: options.now };
}
