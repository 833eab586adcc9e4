import { randomUUID } from 'node:crypto';
import type {
  AbandonTasksOptions,
  CreateTaskInput,
  CreateTaskOutcome,
  ListTasksOptions,
  StoredTask,
  TaskKind,
  TaskPage,
  TaskStore,
  TaskUpdate,
  UpdateTaskOutcome,
} from './task-store.js';
import { isTerminalTaskStatus } from './task-store.js';
import type { TaskPolicy } from './task-policy.js';
import {
  cancelledStatus,
  clampTtl,
  decodeTaskCursor,
  encodeTaskCursor,
  pageSize,
  resolveTaskPolicy,
} from './task-policy.js';

export interface MemoryTaskStoreOptions {
  policy?: Partial<TaskPolicy>;
}

/** An owner-scoped task store in process memory (tests, single short-lived processes). */
export class MemoryTaskStore implements TaskStore {
  readonly leaseMs: number;
  readonly #policy: TaskPolicy;
  readonly #rows = new Map<string, StoredTask>();
  // One process: every task is this store's own; the lease still lapses when nobody renews it.
  readonly #leases = new Map<string, number>();

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#policy = resolveTaskPolicy(options.policy);
    this.leaseMs = this.#policy.leaseMs;
  }

  #live(owner: string, taskId: string, now: number): StoredTask | undefined {
    const row = this.#rows.get(taskId);
    if (row === undefined || row.owner !== owner) return undefined;
    if (row.expiresAt !== null && row.expiresAt <= now) return undefined;
    return row;
  }

  async create(input: CreateTaskInput): Promise<CreateTaskOutcome> {
    const policy = this.#policy;
    const rows = this.#rows;
    const now = input.now ?? Date.now();
    const since = now - policy.rateLimit.windowMs;
    const recent = [...rows.values()]
      .filter((r) => r.owner === input.owner && r.createdAt > since)
      .map((r) => r.createdAt)
      .sort((a, b) => a - b);
    if (recent.length >= policy.rateLimit.max) {
      return {
        ok: false,
        reason: 'rate_limited',
        retryAfterMs: Math.max(1, (recent[0] ?? now) + policy.rateLimit.windowMs - now),
      };
    }
    const held = [...rows.values()]
      .filter((r) => r.owner === input.owner && (r.expiresAt === null || r.expiresAt > now))
      .map((r) => r.expiresAt ?? Number.POSITIVE_INFINITY);
    if (held.length >= policy.maxTasksPerOwner) {
      const soonest = Math.min(...held);
      return {
        ok: false,
        reason: 'too_many_tasks',
        retryAfterMs: Math.max(1, Number.isFinite(soonest) ? soonest - now : policy.maxTtlMs),
      };
    }
    const taskId = input.taskId ?? randomUUID();
    if (rows.has(taskId)) throw new RangeError(`task id already exists: ${taskId}`);
    const ttlMs = clampTtl(policy, input.requestedTtlMs);
    const task: StoredTask = {
      taskId,
      owner: input.owner,
      kind: input.kind,
      status: input.status ?? 'working',
      ttlMs,
      pollIntervalMs: policy.pollIntervalMs,
      createdAt: now,
      lastUpdatedAt: now,
      expiresAt: now + ttlMs,
    };
    if (input.taskType !== undefined) task.taskType = input.taskType;
    if (input.statusMessage !== undefined) task.statusMessage = input.statusMessage;
    if (input.request !== undefined) task.request = structuredClone(input.request);
    rows.set(taskId, task);
    this.#leases.set(taskId, now + policy.leaseMs);
    return { ok: true, task: copy(task) };
  }

  async get(owner: string, taskId: string, now = Date.now()): Promise<StoredTask | undefined> {
    const row = this.#live(owner, taskId, now);
    return row === undefined ? undefined : copy(row);
  }

  async update(owner: string, taskId: string, update: TaskUpdate): Promise<UpdateTaskOutcome> {
    const now = update.now ?? Date.now();
    const row = this.#live(owner, taskId, now);
    if (row === undefined) return { ok: false, reason: 'not_found' };
    if (isTerminalTaskStatus(row.status)) return { ok: false, reason: 'terminal', task: copy(row) };
    if (update.status !== undefined) row.status = update.status;
    if (update.statusMessage !== undefined) row.statusMessage = update.statusMessage;
    if (update.result !== undefined) row.result = structuredClone(update.result);
    row.lastUpdatedAt = now;
    return { ok: true, task: copy(row) };
  }

  async cancel(owner: string, taskId: string, now = Date.now()): Promise<UpdateTaskOutcome> {
    const row = this.#live(owner, taskId, now);
    if (row === undefined) return { ok: false, reason: 'not_found' };
    return this.update(owner, taskId, { status: cancelledStatus(row.kind), now });
  }

  async list(owner: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const now = options.now ?? Date.now();
    const after = options.cursor === undefined ? undefined : decodeTaskCursor(options.cursor);
    if (options.cursor !== undefined && after === undefined) throw new RangeError('invalid task list cursor');
    const size = pageSize(this.#policy, options.limit);
    const matching = [...this.#rows.values()]
      .filter((r) => r.owner === owner && (r.expiresAt === null || r.expiresAt > now))
      .filter((r) => options.kind === undefined || r.kind === options.kind)
      .filter((r) => options.statuses === undefined || options.statuses.includes(r.status))
      .sort((a, b) => b.createdAt - a.createdAt || (a.taskId < b.taskId ? 1 : a.taskId > b.taskId ? -1 : 0))
      .filter(
        (r) =>
          after === undefined ||
          r.createdAt < after.createdAt ||
          (r.createdAt === after.createdAt && r.taskId < after.taskId),
      );
    const page = matching.slice(0, size);
    const last = page[page.length - 1];
    return matching.length > size && last !== undefined
      ? { tasks: page.map(copy), nextCursor: encodeTaskCursor(last.createdAt, last.taskId) }
      : { tasks: page.map(copy) };
  }

  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const [id, row] of this.#rows) {
      if (row.expiresAt !== null && row.expiresAt <= now) {
        this.#rows.delete(id);
        this.#leases.delete(id);
        removed += 1;
      }
    }
    return removed;
  }

  async renewLeases(now = Date.now()): Promise<number> {
    let count = 0;
    for (const row of this.#rows.values()) {
      if (isTerminalTaskStatus(row.status) || (row.expiresAt !== null && row.expiresAt <= now)) continue;
      this.#leases.set(row.taskId, now + this.#policy.leaseMs);
      count += 1;
    }
    return count;
  }

  async abandonUnfinished(kind: TaskKind, options: AbandonTasksOptions): Promise<number> {
    const now = options.now ?? Date.now();
    let count = 0;
    for (const row of this.#rows.values()) {
      if (row.kind !== kind || isTerminalTaskStatus(row.status) || (row.expiresAt !== null && row.expiresAt <= now))
        continue;
      if ((this.#leases.get(row.taskId) ?? 0) > now) continue;
      row.status = 'failed';
      row.statusMessage = options.statusMessage;
      if (options.result !== undefined) row.result = structuredClone(options.result);
      row.lastUpdatedAt = now;
      count += 1;
    }
    return count;
  }

  async close(): Promise<void> {
    this.#rows.clear();
    this.#leases.clear();
  }
}

function copy(task: StoredTask): StoredTask {
  return structuredClone(task);
}
