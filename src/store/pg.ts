/** `adcp-wire/store/pg`: the PostgreSQL stores (loads the `pg` driver). */
export { PgDatabase, type PgConnectOptions, type PgStoreOptions, type PgTransactionClient } from './pg-database.js';
export { PgDedupStore } from './pg-dedup-store.js';
export { PgOperationStore } from './pg-operation-store.js';
export { PgTaskStore, type PgTaskStoreOptions } from './pg-task-store.js';
export { PgReplayStore, type PgReplayStoreOptions } from './pg-replay-store.js';
export { PgIdempotencyStore } from './pg-idempotency-store.js';
