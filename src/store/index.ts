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
