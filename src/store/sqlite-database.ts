import type Database from 'better-sqlite3';
import { requirePeer } from './require-peer.js';

import type { SqliteStoreOptions } from './sqlite-options.js';

/** The driver's connection type, used inside the stores (the options name a structural one). */
export type SqliteDatabase = Database.Database;

/**
 * Opens (or adopts) a SQLite connection for the stores: WAL journal, a busy timeout so several
 * processes on one file wait instead of failing, and the `schema_version` table. Returns whether
 * the caller owns the connection (and must close it).
 */
export function openSqliteDatabase(options: SqliteStoreOptions): { db: SqliteDatabase; owned: boolean } {
  if ('database' in options) {
    const db = options.database as SqliteDatabase;
    ensureSchemaTable(db);
    return { db, owned: false };
  }
  if (typeof options.path !== 'string' || options.path === '') {
    throw new TypeError("SQLite store: pass { path: 'file.db' | ':memory:' } or { database }");
  }
  const db = openSqliteFile(options.path, 'The SQLite store');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  ensureSchemaTable(db);
  return { db, owned: true };
}

/** A new connection to a SQLite file (or `:memory:`), loading the driver on first use. */
export function openSqliteFile(path: string, user: string): SqliteDatabase {
  const Driver = requirePeer<typeof Database>('better-sqlite3', user);
  return new Driver(path);
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
      { version: number } | undefined;
    const current = row?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `SQLite store: ${component} schema version ${current} is newer than this library (${migrations.length})`,
      );
    }
    for (let v = current; v < migrations.length; v += 1) db.exec(migrations[v] as string);
    db.prepare(
      'INSERT INTO schema_version (component, version) VALUES (?, ?) ON CONFLICT(component) DO UPDATE SET version = excluded.version',
    ).run(component, migrations.length);
  }).immediate();
}
