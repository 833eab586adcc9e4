import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/** Where a SQLite store keeps its rows: a file path, `:memory:`, or a connection to share. */
export type SqliteStoreOptions = { path: string } | { database: SqliteDatabase };

/**
 * Opens (or adopts) a SQLite connection for the stores: WAL journal, a busy timeout so several
 * processes on one file wait instead of failing, and the `schema_version` table. Returns whether
 * the caller owns the connection (and must close it).
 */
export function openSqliteDatabase(options: SqliteStoreOptions): { db: SqliteDatabase; owned: boolean } {
  if ('database' in options) {
    ensureSchemaTable(options.database);
    return { db: options.database, owned: false };
  }
  if (typeof options.path !== 'string' || options.path === '') {
    throw new TypeError("SQLite store: pass { path: 'file.db' | ':memory:' } or { database }");
  }
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  ensureSchemaTable(db);
  return { db, owned: true };
}

function ensureSchemaTable(db: SqliteDatabase): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL)');
}

/**
 * Runs `migrations[i]` for every version above the one recorded for `component`, in one
 * transaction, and records the new version. A file written by a newer library is refused.
 */
export function migrateSqlite(db: SqliteDatabase, component: string, migrations: readonly string[]): void {
  db.transaction(() => {
    const row = db.prepare('SELECT version FROM schema_version WHERE component = ?').get(component) as
      | { version: number }
      | undefined;
    const current = row?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(`SQLite store: ${component} schema version ${current} is newer than this library (${migrations.length})`);
    }
    for (let v = current; v < migrations.length; v += 1) db.exec(migrations[v] as string);
    db.prepare(
      'INSERT INTO schema_version (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version',
    ).run(component, migrations.length);
  }).immediate();
}

const batchers = new WeakMap<SqliteDatabase, SqliteWriteBatcher>();

/** The group-commit queue of a connection, shared by every store that uses it. */
export function writeBatcherFor(db: SqliteDatabase): SqliteWriteBatcher {
  let batcher = batchers.get(db);
  if (batcher === undefined) {
    batcher = new SqliteWriteBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher;
}

interface QueuedWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes queued during one event-loop turn run in one IMMEDIATE transaction, and
 * each caller's promise settles only after that COMMIT, so durability per write is unchanged while
 * concurrent deliveries share one WAL commit instead of paying one each. Writes still run one after
 * another, so a claim stays atomic. A write that throws fails alone; a failed COMMIT fails them all.
 */
export class SqliteWriteBatcher {
  readonly #db: SqliteDatabase;
  readonly #begin;
  readonly #commit;
  readonly #rollback;
  #queue: QueuedWrite[] = [];
  #scheduled = false;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
  }

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (!this.#db.open) {
      for (const write of batch) write.reject(new Error('SQLite store is closed'));
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const own = batch.length > 1 && !this.#db.inTransaction;
    try {
      if (own) this.#begin.run();
      for (const write of batch) {
        try {
          outcomes.push({ ok: true, value: write.fn() });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      if (own) this.#commit.run();
    } catch (error) {
      if (own && this.#db.inTransaction) this.#rollback.run();
      for (const write of batch) write.reject(error);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }
}
