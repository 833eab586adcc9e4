/**
 * The webhook outbox of a task store that outlives a process (SQLite file, PostgreSQL): a webhook
 * owed for a task's status change is written in the same transaction as the status, then sent by
 * a sender loop of any process on the store (src/server/tasks/outbox-sender.ts, docs/fleet.md "Webhook
 * outbox"). Each row carries a lease: the process sending it holds it for one attempt; when that
 * process dies, the lease lapses and another takes the delivery over. The row's id is the
 * envelope's `idempotency_key`, and the envelope is stored whole, so every attempt by every
 * process sends the same body and the receiver dedups a re-send whose first outcome was unknown.
 */

/** A delivery owed: where to, and the complete envelope (sent unchanged on every attempt). */
export interface OwedWebhook {
  /** The envelope's `idempotency_key`: unique per event, the row's primary key. */
  id: string;
  taskId: string;
  /** The buyer's `push_notification_config` (JSON). */
  destination: unknown;
  /** The webhook payload (JSON object), `idempotency_key` and `timestamp` included. */
  envelope: Record<string, unknown>;
  /**
   * Leased to the handle writing it for this long (it sends it at once). Absent: due now for
   * any sender (a row written for another process's work, such as an abandoned task).
   */
  leaseMs?: number;
}

/** A delivery taken by `claim`: this handle may send it until the lease lapses. */
export interface ClaimedWebhook {
  id: string;
  taskId: string;
  destination: unknown;
  envelope: Record<string, unknown>;
  /** Attempts made so far, this one included. */
  attempts: number;
}

/** Where a delivery stands (`pending` until sent or given up). */
export type OutboxState = 'pending' | 'delivered' | 'failed';

export interface OutboxRow {
  id: string;
  taskId: string;
  state: OutboxState;
  attempts: number;
  lastError?: string;
}

export interface WebhookOutbox {
  /**
   * Takes up to `limit` pending deliveries that are due and whose lease lapsed, leases them to
   * this handle for `leaseMs` and counts an attempt on each. Two processes never take one row at
   * once (an atomic conditional update; `FOR UPDATE SKIP LOCKED` on PostgreSQL).
   */
  claim(options: { limit: number; leaseMs: number; now?: number }): Promise<ClaimedWebhook[]>;
  /** The delivery ended: `delivered`, or `failed` for good (a final answer, attempts used up). */
  settle(id: string, outcome: { state: 'delivered' | 'failed'; error?: string; now?: number }): Promise<void>;
  /** The attempt failed and may be retried: due again at `at`, lease ended (any process may send it). */
  retryAt(id: string, at: number, error?: string): Promise<void>;
  /**
   * Hands back a delivery this handle claimed but did not attempt (its destination was busy):
   * the attempt the claim counted is taken back, the lease ends, and it is due again at `at`.
   */
  postpone(id: string, at: number): Promise<void>;
  /** Ends the lease of every pending delivery this handle holds (a hand-over at shutdown). */
  release(): Promise<number>;
  /** The rows of one task, oldest first (diagnostics and tests). */
  list(taskId: string): Promise<OutboxRow[]>;
}

/** Settled rows are kept this long for diagnostics, then swept with the expired tasks. */
export const OUTBOX_RETENTION_MS = 24 * 60 * 60 * 1000;
