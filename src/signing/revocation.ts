/**
 * Key revocation for the webhook verifier (security.md, "Transport revocation", step 9): a kid in
 * `revoked_kids` is rejected, and once the list has not been refreshed within `next_update` plus
 * grace, every verification is blocked (`revocation_stale`) until it is.
 */
export interface RevocationSource {
  check(keyid: string, nowSeconds: number): Promise<RevocationStatus> | RevocationStatus;
}

export type RevocationStatus = 'ok' | 'revoked' | 'stale';

/** The payload of a revocation list (already fetched and its JWS verified by the caller). */
export interface RevocationListPayload {
  revoked_kids?: string[];
  /** RFC 3339 time of the next expected update. */
  next_update?: string;
  updated?: string;
}

export interface RevocationListOptions {
  /** Grace after `next_update` before the list is stale; default 4x the polling interval, at least 60 s. */
  graceSeconds?: number;
}

/**
 * An in-memory revocation list. `update()` installs a freshly fetched list; without `next_update`
 * the list never goes stale (a static configuration).
 */
export class RevocationList implements RevocationSource {
  #revoked = new Set<string>();
  #staleAfter = Infinity;
  readonly #graceSeconds: number | undefined;

  constructor(
    initial: RevocationListPayload = {},
    options: RevocationListOptions = {},
    nowSeconds = Date.now() / 1000,
  ) {
    this.#graceSeconds = options.graceSeconds;
    this.update(initial, nowSeconds);
  }

  /** Installs a list fetched at `nowSeconds`. */
  update(list: RevocationListPayload, nowSeconds = Date.now() / 1000): void {
    this.#revoked = new Set((list.revoked_kids ?? []).filter((k): k is string => typeof k === 'string'));
    const next = list.next_update === undefined ? NaN : Date.parse(list.next_update) / 1000;
    if (Number.isNaN(next)) {
      this.#staleAfter = Infinity;
      return;
    }
    const interval = Math.max(60, next - nowSeconds);
    this.#staleAfter = next + (this.#graceSeconds ?? 4 * interval);
  }

  /** Marks the list as not refreshed within grace (tests, conformance harnesses), until the next `update`. */
  markStale(): void {
    this.#staleAfter = -Infinity;
  }

  check(keyid: string, nowSeconds: number): RevocationStatus {
    if (nowSeconds > this.#staleAfter) return 'stale';
    return this.#revoked.has(keyid) ? 'revoked' : 'ok';
  }
}
