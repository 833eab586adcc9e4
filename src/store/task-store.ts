import { FINAL_STATUSES } from '../core/types.js';
import type { OwedWebhook, WebhookOutbox } from './webhook-outbox.js';
/**
 * The server's durable tasks: MCP Tasks (the transport wrapper), AdCP async tasks (`task_id`,
 * `get_task_status`) and A2A tasks. Every task belongs to an owner (an MCP session id, or an
 * authenticated principal); every read, update, cancel and list takes the owner, and a task of
 * another owner is simply "not found" (mcp-guide, "Production task isolation").
 *
 * Implementations: ./memory-task-store.ts (tests), ./sqlite-task-store.ts (embedded default),
 * ./pg-task-store.ts (fleets). All of them share ./task-policy.ts for TTL clamping, poll interval
 * the creation rate limit and the per-owner task cap, and pass test/store/task-store-contract.ts.
 */

/** Which lifecycle a task follows. Statuses are stored as the wire of that kind spells them. */
export type TaskKind = 'mcp' | 'adcp' | 'a2a';

/**
 * Statuses after which a task never changes. MCP spells `cancelled`, AdCP `canceled`;
 * A2A v0.3 state names are stored as they are.
 */
export const TERMINAL_TASK_STATUSES = [...FINAL_STATUSES, 'cancelled'] as const;

/** True when a stored task can no longer move. */
export function isTerminalTaskStatus(status: string): boolean {
  return (TERMINAL_TASK_STATUSES as readonly string[]).includes(status);
}

export interface StoredTask {
  taskId: string;
  owner: string;
  kind: TaskKind;
  /** The tool / AdCP task type (`create_media_buy`), when known. */
  taskType?: string;
  status: string;
  statusMessage?: string;
  /** Effective TTL in ms after clamping (null: no expiry, only if the policy allows it). */
  ttlMs: number | null;
  /** Suggested poll interval in ms; always set. */
  pollIntervalMs: number;
  createdAt: number;
  lastUpdatedAt: number;
  /** `createdAt + ttlMs`, or null. Expired rows are invisible and removed by `sweep`. */
  expiresAt: number | null;
  /** What the server needs to finish the task later (JSON): push config, context, args... */
  request?: unknown;
  /** The final (or latest) result, JSON. */
  result?: unknown;
}

export interface CreateTaskInput {
  owner: string;
  kind: TaskKind;
  taskType?: string;
  /** Initial status; defaults to `working`. */
  status?: string;
  statusMessage?: string;
  /** The TTL the client asked for (ms); clamped by the policy; undefined/null gives the default. */
  requestedTtlMs?: number | null | undefined;
  /** Caller-chosen id (A2A ids, tests); otherwise a random UUID. Must be unique. */
  taskId?: string;
  request?: unknown;
  now?: number;
}

export type CreateTaskOutcome =
  | { ok: true; task: StoredTask }
  /** The owner created too many tasks in the current window. */
  | { ok: false; reason: 'rate_limited'; retryAfterMs: number }
  /** The owner already holds `maxTasksPerOwner` unexpired tasks; retry once the soonest expires. */
  | { ok: false; reason: 'too_many_tasks'; retryAfterMs: number };

export interface TaskUpdate {
  status?: string;
  statusMessage?: string;
  result?: unknown;
  /**
   * A webhook owed for this change: on a store with an `outbox`, written in the same transaction
   * as the status, and only if the update took (ignored by a store without one).
   */
  webhook?: OwedWebhook;
  now?: number;
}

export type UpdateTaskOutcome =
  | { ok: true; task: StoredTask }
  /** No live task with that id for that owner. */
  | { ok: false; reason: 'not_found' }
  /** The task is already terminal and was left unchanged. */
  | { ok: false; reason: 'terminal'; task: StoredTask };

export interface ListTasksOptions {
  kind?: TaskKind;
  statuses?: string[];
  /** Opaque cursor from a previous page. */
  cursor?: string;
  /** Page size (default and max from the policy's `listLimit`). */
  limit?: number;
  now?: number;
}

export interface TaskPage {
  tasks: StoredTask[];
  nextCursor?: string;
}

/**
 * Owner-scoped durable task store. Updates are conditional: a terminal task is never changed
 * (two racing finishers cannot both win; a cancel after completion is refused).
 */
export interface AbandonTasksOptions {
  /** The status message the failed tasks get. */
  statusMessage: string;
  /** The result they carry (an AdCP error payload), if any. */
  result?: unknown;
  /**
   * The webhook owed for a failed task, if any: written to the `outbox` in the same transaction
   * as the failure (ignored by a store without one). Given the task as it now reads.
   */
  webhookFor?: (task: StoredTask) => OwedWebhook | undefined;
  now?: number;
}

export interface TaskStore {
  /** The policy's `leaseMs`: a server renews its leases several times within it. */
  readonly leaseMs: number;
  /**
   * The webhook outbox, on a store that outlives a process (SQLite, PostgreSQL): owed webhooks
   * are written with the status they report and survive a crash. Absent in memory, where the
   * server sends each webhook directly.
   */
  readonly outbox?: WebhookOutbox;
  create(input: CreateTaskInput): Promise<CreateTaskOutcome>;
  /** The live (unexpired) task, or undefined when absent, expired, or owned by someone else. */
  get(owner: string, taskId: string, now?: number): Promise<StoredTask | undefined>;
  update(owner: string, taskId: string, update: TaskUpdate): Promise<UpdateTaskOutcome>;
  /** Moves a non-terminal task to `cancelled` (mcp) or `canceled` (adcp, a2a). */
  cancel(owner: string, taskId: string, now?: number): Promise<UpdateTaskOutcome>;
  /** The owner's live tasks, newest first. */
  list(owner: string, options?: ListTasksOptions): Promise<TaskPage>;
  /** Deletes expired rows. Returns how many were removed. */
  sweep(now?: number): Promise<number>;
  /**
   * Renews the lease of every unfinished task this store handle created (this process runs
   * them). A server calls it several times per `leaseMs`. Returns how many leases were renewed.
   */
  renewLeases(now?: number): Promise<number>;
  /**
   * Marks `failed`, with the given message and result, every live unfinished task of `kind` (all
   * owners) whose lease lapsed: the process running it stopped renewing it (it died). Tasks of a
   * live process, this one or another of a fleet on the same database, are never touched.
   * Returns how many tasks were failed.
   */
  abandonUnfinished(kind: TaskKind, options: AbandonTasksOptions): Promise<number>;
  /**
   * Ends the lease of every unfinished task this handle runs, so another process on the same store
   * takes them over now rather than when the lease would have lapsed (a graceful shutdown's hand-over).
   * Only a store shared between processes has it. Returns how many leases were released.
   */
  releaseLeases?(): Promise<number>;
  /**
   * Of `taskIds`, those that are now cancelled (whoever owns them): how an instance of a fleet
   * learns that a task it runs was cancelled through another (server/tasks/cancel-watch.ts). Only a
   * store shared between processes has it.
   */
  cancelledAmong?(taskIds: readonly string[]): Promise<string[]>;
  /** Throws when the store cannot be reached now (readiness); absent on a store that is always reachable. */
  ping?(): Promise<void>;
  close(): Promise<void>;
}
