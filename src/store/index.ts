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
export { STATUS_RANK, statusRank } from './types.js';
export { isForwardUpdate, FINAL_RANK } from './operation-rules.js';
export { MemoryDedupStore } from './memory-dedup-store.js';
export { MemoryOperationStore } from './memory-operation-store.js';
export { SqliteDedupStore } from './sqlite-dedup-store.js';
export { SqliteOperationStore } from './sqlite-operation-store.js';
export { openSqliteDatabase, type SqliteDatabase, type SqliteStoreOptions } from './sqlite-database.js';
export { openStoresFromUrl, isPgUrl, type OpenedStores, type OpenStoresOptions } from './pg-open-stores.js';
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
} from './task-store.js';
export { TERMINAL_TASK_STATUSES, isTerminalTaskStatus } from './task-store.js';
export { DEFAULT_TASK_POLICY, resolveTaskPolicy, clampTtl, type TaskPolicy } from './task-policy.js';
export { createMemoryTaskStore } from './memory-task-store.js';
export { createSqliteTaskStore, type SqliteTaskStoreOptions } from './sqlite-task-store.js';
export { SqliteWriteBatcher, writeBatcherFor } from './sqlite-write-batcher.js';
export { SqliteReplayStore, type SqliteReplayOutcome } from './sqlite-replay-store.js';
