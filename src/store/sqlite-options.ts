/**
 * The public face of the SQLite stores' options, declared without the driver's types: an app
 * that never uses SQLite must compile with `skipLibCheck: false` without `@types/better-sqlite3`
 * (issue 32 item 15). The stores use the driver's full types inside (`sqlite-database.ts`).
 */

/**
 * A better-sqlite3 `Database` connection, as far as the options need to name it (any
 * better-sqlite3 `Database` fits). Pass one to share it between stores and your own tables.
 */
export interface SqliteDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly name: string;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
}

/** Where a SQLite store keeps its rows: a file path, `:memory:`, or a connection to share. */
export type SqliteStoreOptions = { path: string } | { database: SqliteDatabase };
