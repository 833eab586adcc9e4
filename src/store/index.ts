export type {
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
export { PgDatabase, type PgConnectOptions, type PgStoreOptions } from './pg-database.js';
export { PgDedupStore } from './pg-dedup-store.js';
export { PgOperationStore } from './pg-operation-store.js';
export { createPgTaskStore, type PgTaskStoreOptions } from './pg-task-store.js';
export { openStoresFromUrl, isPgUrl, type OpenedStores, type OpenStoresOptions } from './pg-open-stores.js';
export type { TaskStore, StoredTask, TaskKind, CreateTaskInput, CreateTaskOutcome, TaskUpdate, UpdateTaskOutcome, ListTasksOptions, TaskPage } from './task-store.js';
export { TERMINAL_TASK_STATUSES, isTerminalTaskStatus } from './task-store.js';
export { DEFAULT_TASK_POLICY, resolveTaskPolicy, clampTtl, type TaskPolicy } from './task-policy.js';
export { createMemoryTaskStore } from './memory-task-store.js';
export { createSqliteTaskStore, type SqliteTaskStoreOptions } from './sqlite-task-store.js';
export { PgReplayStore, type PgReplayStoreOptions } from './pg-replay-store.js';
export { SqliteWriteBatcher, writeBatcherFor } from './sqlite-write-batcher.js';
export { SqliteReplayStore, type SqliteReplayOutcome } from './sqlite-replay-store.js';
