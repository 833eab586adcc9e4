/**
 * `adcp-wire/store`: the store interfaces, the in-memory and SQLite implementations, and
 * `openStoresFromUrl`, which loads the PostgreSQL driver only when given a `postgres://` URL.
 * The PostgreSQL classes themselves are in `adcp-wire/store/pg` (./pg.ts), so that importing
 * this module never loads `pg`.
 */
export type {
  ClaimAndAdvanceOutcome,
  ClaimAndAdvanceRequest,
  ClaimOutcome,
  DedupStore,
  OperationFilter,
  OperationRecord,
  OperationStore,
  OperationUpdate,
} from './types.js';
export { MemoryDedupStore } from './memory-dedup-store.js';
export { MemoryOperationStore } from './memory-operation-store.js';
export { SqliteDedupStore } from './sqlite-dedup-store.js';
export { SqliteOperationStore } from './sqlite-operation-store.js';
export type { SqliteDatabase, SqliteStoreOptions } from './sqlite-options.js';
export { openStoresFromUrl, type OpenedStores, type OpenStoresOptions } from './pg-open-stores.js';
export type {
  TaskStore,
  StoredTask,
  TaskKind,
  CreateTaskInput,
  CreateTaskOutcome,
  TaskUpdate,
  UpdateTaskOutcome,
  ListTasksOptions,
  TaskPage,
  AbandonTasksOptions,
} from './task-store.js';
export { TERMINAL_TASK_STATUSES, isTerminalTaskStatus } from './task-store.js';
export { DEFAULT_TASK_POLICY, type TaskPolicy } from './task-policy.js';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory-task-store.js';
export { SqliteTaskStore, type SqliteTaskStoreOptions } from './sqlite-task-store.js';
export { SqliteReplayStore, type SqliteReplayOutcome } from './sqlite-replay-store.js';
export type {
  IdempotencyStore,
  IdempotencyClaim,
  IdempotencyClaimOptions,
  IdempotencyCompleteOptions,
  IdempotencyReclaimOptions,
} from './idempotency-store.js';
export { MemoryIdempotencyStore } from './memory-idempotency-store.js';
export { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';
