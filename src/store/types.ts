/**
 * The small interfaces behind durable state. Every method is async so that an embedded store
 * (SQLite, in-memory) and a shared one (PostgreSQL) are interchangeable without changing callers.
 * Implementations: ./memory-*.ts (tests), ./sqlite-*.ts (embedded default), ./pg-*.ts (fleets).
 * Stores import only their database driver; they know nothing of HTTP or AdCP wire shapes.
 */

/** Result of trying to take a webhook `idempotency_key` for processing. */
export type ClaimOutcome =
  /** This caller holds the key now and must `complete` or `release` it. */
  | { kind: 'claimed'; token: string }
  /** A handler already finished for this key: answer 2xx, do not run it again. */
  | { kind: 'done' }
  /** Another delivery holds a live lease on this key: do not run it; let the sender retry. */
  | { kind: 'busy'; leaseExpiresAt: number }
  /**
   * The key is bound to a different payload `fingerprint` (webhooks.md, Reliability: "same key plus
   * a changed canonical payload is not a duplicate"): do not run it; answer 409.
   */
  | { kind: 'conflict' };

/**
 * De-duplication of webhook deliveries by `idempotency_key`, exactly once across retries,
 * concurrent deliveries and crashes:
 * - `claim` inserts (never check-then-insert) a row `processing` with a lease; a row whose lease
 *   expired without `complete` (the holder crashed) is claimed again, so no event is lost.
 * - `complete` marks it done (kept until `ttlMs` after completion); `release` gives it up after a
 *   handler failure so the sender's retry runs the handler again.
 * Keys are scoped by `scope` (e.g. the sender/agent), so two senders cannot collide.
 * The stores of this library are the one claim machine of ./claim-store.ts (shared with the
 * seller's idempotency store) on their backend.
 */
export interface DedupStore {
  /**
   * `fingerprint` (optional; e.g. a hash of the canonical payload) is stored with the key on its
   * first claim and kept across reclaims; a later claim with a different fingerprint gets
   * `conflict` while the row lives (a claim without one is never a conflict).
   */
  claim(
    scope: string,
    key: string,
    options: { leaseMs: number; now?: number; fingerprint?: string },
  ): Promise<ClaimOutcome>;
  complete(scope: string, key: string, token: string, options: { ttlMs: number; now?: number }): Promise<boolean>;
  release(scope: string, key: string, token: string): Promise<void>;
  /** Deletes done rows past their TTL; never blocks writers for long. Returns rows removed. */
  sweep(now?: number): Promise<number>;
  close(): Promise<void>;
  /**
   * Optional: `claim`, then, only if the key was taken (new or taken over), the operation's
   * `advance`, as one atomic step (a shared store saves round trips). Answers `undefined` when it
   * cannot combine with `request.operations` (another store or database): make the two calls.
   */
  claimAndAdvance?(request: ClaimAndAdvanceRequest): Promise<ClaimAndAdvanceOutcome | undefined>;
}

export interface ClaimAndAdvanceRequest {
  scope: string;
  key: string;
  leaseMs: number;
  now: number;
  fingerprint?: string;
  /**
   * Complete the key in the same step, kept `ttlMs` (for a receiver with no handler to run
   * between claim and completion). Absent: the key stays claimed until `complete` or `release`.
   */
  complete?: { ttlMs: number };
  operations: OperationStore;
  operationId: string;
  update: OperationUpdate & { createIfMissing?: { agent: string; taskType: string } };
  /**
   * An existing operation must have this agent and task type (each checked when given); when
   * it does not, nothing is claimed or moved and the answer is `mismatch`.
   */
  expect: { agent?: string; taskType?: string };
}

export type ClaimAndAdvanceOutcome =
  | Exclude<ClaimOutcome, { kind: 'claimed' }>
  | { kind: 'mismatch'; field: 'agent' | 'task_type' }
  /** Claimed (and completed when asked), and the operation as `advance` would answer. */
  | { kind: 'claimed'; token: string; applied: boolean; record: OperationRecord | undefined };

/** A buyer-side record of one async AdCP operation (a `create_media_buy` awaiting approval...). */
export interface OperationRecord {
  operationId: string;
  /** The agent (URL) it was sent to. */
  agent: string;
  taskType: string;
  /** The AdCP `task_id`, once known. */
  taskId?: string;
  /** AdCP status (`submitted`, `working`, ..., `completed`). */
  status: string;
  /** The last AdCP result body (JSON-serialisable). */
  result?: unknown;
  /** Timestamp (ms) of the event that set the current status: used to refuse stale events. */
  statusAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface OperationUpdate {
  status: string;
  /** When the event happened (the webhook's `timestamp`, or poll time), in ms. */
  statusAt: number;
  taskId?: string;
  result?: unknown;
}

export interface OperationFilter {
  agent?: string;
  taskType?: string;
  statuses?: string[];
  limit?: number;
}

/**
 * Operations, moved forward by webhooks and polling. `advance` is a conditional update: it never
 * moves an operation backwards (a final status is never left; an older event never overwrites a
 * newer one; an interim status never replaces a later interim one, by the rank in `statusRank`).
 */
export interface OperationStore {
  /** Creates the record if absent; returns the stored record either way. */
  create(record: Omit<OperationRecord, 'createdAt' | 'updatedAt'> & { now?: number }): Promise<OperationRecord>;
  /** Applies an update if it moves the operation forward; returns whether it did, and the record. */
  advance(
    operationId: string,
    update: OperationUpdate & { now?: number; createIfMissing?: { agent: string; taskType: string } },
  ): Promise<{ applied: boolean; record: OperationRecord | undefined }>;
  get(operationId: string): Promise<OperationRecord | undefined>;
  list(filter?: OperationFilter): Promise<OperationRecord[]>;
  close(): Promise<void>;
}

/** Order of AdCP statuses for "never backwards": final statuses outrank every interim one. */
export const STATUS_RANK: Readonly<Record<string, number>> = {
  submitted: 1,
  working: 2,
  'input-required': 2,
  'auth-required': 2,
  completed: 10,
  failed: 10,
  rejected: 10,
  canceled: 10,
};

/** Rank of a status; unknown statuses rank 0 and never replace a known one. */
export function statusRank(status: string): number {
  return STATUS_RANK[status] ?? 0;
}
