import type { SqliteDatabase } from './sqlite-database.js';

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
