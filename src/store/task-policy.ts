import type { TaskKind } from './task-store.js';

/**
 * The limits every task store applies the same way: TTL clamping, the poll interval it
 * suggests, the per-owner creation rate limit, the per-owner cap on stored tasks and the list
 * page size.
 */
export interface TaskPolicy {
  /** TTL given when the client asks for none (ms). */
  defaultTtlMs: number;
  /** Smallest TTL kept (ms); smaller requests are raised to it. */
  minTtlMs: number;
  /** Largest TTL kept (ms); larger requests, and `null` (unlimited), are lowered to it. */
  maxTtlMs: number;
  /** `pollInterval` set on every task (ms). */
  pollIntervalMs: number;
  /** At most `max` tasks created per owner per `windowMs`. */
  rateLimit: { max: number; windowMs: number };
  /**
   * At most this many unexpired tasks (any kind, any status) stored per owner at once; `create`
   * refuses past it until one expires. Bounds a store at owners x this, whatever rate x TTL allows.
   */
  maxTasksPerOwner: number;
  /** Largest list page. */
  listLimit: number;
  /**
   * How long an unfinished task stays owned by the process that runs it without a renewal (ms).
   * The server renews its own tasks' leases several times per lease; a task whose lease lapsed
   * belongs to a process that is gone, and is failed by whichever server sees it first.
   */
  leaseMs: number;
}

export const DEFAULT_TASK_POLICY: Readonly<TaskPolicy> = {
  defaultTtlMs: 60 * 60 * 1000,
  minTtlMs: 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
  pollIntervalMs: 1000,
  rateLimit: { max: 120, windowMs: 60 * 1000 },
  maxTasksPerOwner: 10_000,
  listLimit: 100,
  leaseMs: 10_000,
};

/** Merges partial options over the defaults; throws RangeError on nonsense values. */
export function resolveTaskPolicy(options: Partial<TaskPolicy> = {}): TaskPolicy {
  const policy: TaskPolicy = {
    ...DEFAULT_TASK_POLICY,
    ...options,
    rateLimit: { ...DEFAULT_TASK_POLICY.rateLimit, ...options.rateLimit },
  };
  const positive = [
    policy.defaultTtlMs,
    policy.minTtlMs,
    policy.maxTtlMs,
    policy.pollIntervalMs,
    policy.rateLimit.max,
    policy.rateLimit.windowMs,
    policy.maxTasksPerOwner,
    policy.listLimit,
    policy.leaseMs,
  ];
  if (!positive.every((n) => Number.isFinite(n) && n > 0)) {
    throw new RangeError('task policy: every limit must be a positive finite number of ms / items');
  }
  if (policy.minTtlMs > policy.maxTtlMs) {
    throw new RangeError('task policy: minTtlMs must not exceed maxTtlMs');
  }
  return policy;
}

/** The TTL actually kept for a requested one: default when absent, clamped into [min, max]. */
export function clampTtl(policy: TaskPolicy, requested: number | null | undefined): number {
  if (requested === undefined || requested === null || !Number.isFinite(requested)) {
    return requested === null ? policy.maxTtlMs : Math.min(policy.defaultTtlMs, policy.maxTtlMs);
  }
  return Math.min(policy.maxTtlMs, Math.max(policy.minTtlMs, Math.floor(requested)));
}

/** The status a cancelled task takes, spelled as its wire spells it. */
export function cancelledStatus(kind: TaskKind): string {
  return kind === 'mcp' ? 'cancelled' : 'canceled';
}

/** Opaque list cursor: the sort key (createdAt desc, taskId desc) of the last row returned. */
export function encodeTaskCursor(createdAt: number, taskId: string): string {
  return Buffer.from(JSON.stringify([createdAt, taskId]), 'utf8').toString('base64url');
}

/** Reads a cursor back; undefined for anything that is not one of ours. */
export function decodeTaskCursor(cursor: string): { createdAt: number; taskId: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') {
      return { createdAt: value[0], taskId: value[1] };
    }
  } catch {
    // fall through: a malformed cursor is "not ours"
  }
  return undefined;
}

/** The page size for a requested limit. */
export function pageSize(policy: TaskPolicy, limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit < 1) return policy.listLimit;
  return Math.min(policy.listLimit, Math.floor(limit));
}
