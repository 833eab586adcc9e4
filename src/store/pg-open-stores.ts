import type { DedupStore, OperationStore } from './types.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { TaskStore } from './task-store.js';
import type { TaskPolicy } from './task-policy.js';
import type { PgConnectOptions, PgDatabase } from './pg-database.js';

/** The three stores a process needs, opened on one backend, closed together. */
export interface OpenedStores {
  /** Which backend was chosen, for a start-up line ("state: PostgreSQL at host:port/db"). */
  kind: 'postgres' | 'sqlite' | 'memory';
  /** Where the state lives: `host:port/db` (never the password), a file path, or `:memory:`. */
  where: string;
  dedup: DedupStore;
  operations: OperationStore;
  tasks: TaskStore;
  /** A seller's idempotency replay store (`createAdcpServer({ idempotency: { store } })`). */
  idempotency: IdempotencyStore;
  /**
   * The RFC 9421 replay cache the processes on this state share (pass it as the handler's
   * `signature.replay`): PostgreSQL, or the SQLite file; undefined in memory (`:memory:`), where
   * the handler's own per-process cache is the right one.
   */
  replay: SharedReplayStore | undefined;
  /** The PostgreSQL database the stores share (for an application's own tables); undefined on SQLite. */
  database?: PgDatabase;
  close(): Promise<void>;
}

/** Structurally the webhooks `ReplayStore` (the store layer does not import webhooks). */
export interface SharedReplayStore {
  isAtCapacity(keyid: string, nowSeconds: number): Promise<boolean>;
  record(
    keyid: string,
    nonce: string,
    expiresAtSeconds: number,
    nowSeconds: number,
  ): Promise<'recorded' | 'replayed' | 'rate_abuse'>;
  close(): Promise<void>;
}

export interface OpenStoresOptions {
  /**
   * `postgres://` or `postgresql://`: PostgreSQL, shared by every process given the same URL.
   * Anything else is a SQLite file path (`sqlite:` prefix allowed), or `:memory:`.
   * Absent: `env.ADCP_STORE_URL`; absent too: in memory (the embedded default, no driver needed).
   */
  url?: string | undefined;
  /** Where `ADCP_STORE_URL` is read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  taskPolicy?: Partial<TaskPolicy>;
  /** PostgreSQL pool settings (ignored for SQLite). */
  pg?: Omit<PgConnectOptions, 'url'>;
  /** Background sweep of expired dedup keys and tasks, ms (default 60,000; 0 turns it off). */
  sweepIntervalMs?: number;
}

/** True for a URL that selects the PostgreSQL stores. */
export function isPgUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens the dedup, operation and task stores for `--store-url` / `ADCP_STORE_URL`. PostgreSQL
 * is connected and migrated before this resolves, so an unreachable database fails here, at
 * start, with `AdcpWireError` (`store`). Drivers load only when chosen.
 */
export async function openStoresFromUrl(options: OpenStoresOptions = {}): Promise<OpenedStores> {
  const env = options.env ?? process.env;
  const url = options.url ?? (env['ADCP_STORE_URL'] || undefined);
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const { sweepReplay, ...opened }: OpenedStores & { sweepReplay?: () => Promise<number> } = isPgUrl(url)
    ? await openPg(url, options, sweepIntervalMs)
    : await openSqlite(url, options, sweepIntervalMs);
  const sweep = async () => {
    await opened.dedup.sweep().catch(() => undefined);
    await sweepReplay?.().catch(() => undefined);
  };
  const timer = sweepIntervalMs > 0 ? setInterval(() => void sweep(), sweepIntervalMs) : undefined;
  timer?.unref();
  return {
    ...opened,
    async close() {
      if (timer !== undefined) clearInterval(timer);
      await opened.close();
    },
  };
}

async function openPg(
  url: string,
  options: OpenStoresOptions,
  sweepIntervalMs: number,
): Promise<OpenedStores & { sweepReplay: () => Promise<number> }> {
  const [
    { PgDatabase },
    { PgDedupStore },
    { PgOperationStore },
    { PgTaskStore },
    { PgReplayStore },
    { PgIdempotencyStore },
  ] = await Promise.all([
    import('./pg-database.js'),
    import('./pg-dedup-store.js'),
    import('./pg-operation-store.js'),
    import('./pg-task-store.js'),
    import('./pg-replay-store.js'),
    import('./pg-idempotency-store.js'),
  ]);
  const database = new PgDatabase({ ...options.pg, url });
  try {
    await database.connect();
  } catch (error) {
    await database.close();
    throw error;
  }
  const tasks = new PgTaskStore({
    database,
    sweepIntervalMs,
    ...(options.taskPolicy ? { policy: options.taskPolicy } : {}),
  });
  const replay = new PgReplayStore({ database });
  return {
    kind: 'postgres',
    where: database.where,
    dedup: new PgDedupStore({ database }),
    operations: new PgOperationStore({ database }),
    tasks,
    idempotency: new PgIdempotencyStore({ database }),
    replay,
    database,
    sweepReplay: () => replay.sweep(),
    async close() {
      await tasks.close();
      await database.close();
    },
  };
}

async function openSqlite(
  url: string | undefined,
  options: OpenStoresOptions,
  sweepIntervalMs: number,
): Promise<OpenedStores> {
  const path = url === undefined ? ':memory:' : url.replace(/^sqlite:(\/\/)?/i, '');
  if (path === '') throw new TypeError('store URL: give postgres://..., a SQLite file path, or :memory:');
  if (path === ':memory:') return openMemory(options);
  const [
    { SqliteDedupStore },
    { SqliteOperationStore },
    { SqliteTaskStore },
    { SqliteReplayStore },
    { SqliteIdempotencyStore },
  ] = await Promise.all([
    import('./sqlite-dedup-store.js'),
    import('./sqlite-operation-store.js'),
    import('./sqlite-task-store.js'),
    import('./sqlite-replay-store.js'),
    import('./sqlite-idempotency-store.js'),
  ]);
  const dedup = new SqliteDedupStore({ path });
  const operations = new SqliteOperationStore({ path });
  const tasks = new SqliteTaskStore({
    path,
    sweepIntervalMs,
    ...(options.taskPolicy ? { policy: options.taskPolicy } : {}),
  });
  const replay = path === ':memory:' ? undefined : new SqliteReplayStore({ path });
  const idempotency = new SqliteIdempotencyStore({ path });
  return {
    kind: 'sqlite',
    where: path,
    dedup,
    operations,
    tasks,
    idempotency,
    replay,
    async close() {
      await Promise.all([dedup.close(), operations.close(), tasks.close(), idempotency.close(), replay?.close()]);
    },
  };
}

/**
 * `:memory:`: the in-process stores, which need no SQLite driver (decision 0167). Nothing outlives
 * the process, as with SQLite `:memory:`; the handler's own replay cache is the right one.
 */
async function openMemory(options: OpenStoresOptions): Promise<OpenedStores> {
  const [{ MemoryDedupStore }, { MemoryOperationStore }, { MemoryTaskStore }, { MemoryIdempotencyStore }] =
    await Promise.all([
      import('./memory-dedup-store.js'),
      import('./memory-operation-store.js'),
      import('./memory-task-store.js'),
      import('./memory-idempotency-store.js'),
    ]);
  const tasks = new MemoryTaskStore(options.taskPolicy ? { policy: options.taskPolicy } : {});
  const idempotency = new MemoryIdempotencyStore();
  return {
    kind: 'memory',
    where: ':memory:',
    dedup: new MemoryDedupStore(),
    operations: new MemoryOperationStore(),
    tasks,
    idempotency,
    replay: undefined,
    async close() {
      await Promise.all([tasks.close(), idempotency.close()]);
    },
  };
}
