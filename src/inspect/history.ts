import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from '../store/sqlite-database.js';

/** One call as the history keeps it: what was asked, what came back, and what followed. */
export interface HistoryEntry {
  id: string;
  /** When the call was sent, epoch ms. */
  at: number;
  agentUrl: string;
  protocol: string;
  tool: string;
  /** The whole record the page shows (arguments, result, exchanges, task events, webhooks), masked. */
  record: Record<string, unknown>;
  /** The latest AdCP status. */
  status: string;
}

/** The file a colleague opens: every kept call, newest first. */
export interface HistoryExport {
  format: 'adcp-inspect-history';
  version: 1;
  exportedAt: string;
  calls: HistoryEntry[];
}

const MIGRATIONS = [
  `CREATE TABLE inspect_calls (
     id TEXT PRIMARY KEY,
     at INTEGER NOT NULL,
     agent_url TEXT NOT NULL,
     protocol TEXT NOT NULL,
     tool TEXT NOT NULL,
     status TEXT NOT NULL,
     record TEXT NOT NULL
   );
   CREATE INDEX inspect_calls_at ON inspect_calls (at DESC);`,
];

/** Calls kept at most; older ones are deleted as new ones arrive. */
export const MAX_KEPT_CALLS = 2000;

/**
 * Where the history lives by default: `$XDG_STATE_HOME/adcp-wire/inspect.db`, else
 * `~/.local/state/adcp-wire/inspect.db`.
 */
export function defaultHistoryPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state');
  return join(base, 'adcp-wire', 'inspect.db');
}

/** The inspector's calls in a SQLite file (or `:memory:`), each stored as the page shows it. */
export class History {
  readonly path: string;
  readonly #db: SqliteDatabase;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.#db = openSqliteDatabase({ path }).db;
    migrateSqlite(this.#db, 'inspect_calls', MIGRATIONS);
  }

  save(entry: HistoryEntry): void {
    this.#db
      .prepare(
        `INSERT INTO inspect_calls (id, at, agent_url, protocol, tool, status, record) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET status = excluded.status, record = excluded.record`,
      )
      .run(entry.id, entry.at, entry.agentUrl, entry.protocol, entry.tool, entry.status, JSON.stringify(entry.record));
    this.#db
      .prepare('DELETE FROM inspect_calls WHERE id NOT IN (SELECT id FROM inspect_calls ORDER BY at DESC LIMIT ?)')
      .run(MAX_KEPT_CALLS);
  }

  list(limit = 200): Omit<HistoryEntry, 'record'>[] {
    const rows = this.#db
      .prepare(
        'SELECT id, at, agent_url, protocol, tool, status FROM inspect_calls ORDER BY at DESC, rowid DESC LIMIT ?',
      )
      .all(limit) as { id: string; at: number; agent_url: string; protocol: string; tool: string; status: string }[];
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      agentUrl: r.agent_url,
      protocol: r.protocol,
      tool: r.tool,
      status: r.status,
    }));
  }

  get(id: string): HistoryEntry | undefined {
    const row = this.#db
      .prepare('SELECT id, at, agent_url, protocol, tool, status, record FROM inspect_calls WHERE id = ?')
      .get(id) as
      | { id: string; at: number; agent_url: string; protocol: string; tool: string; status: string; record: string }
      | undefined;
    if (row === undefined) return undefined;
    return {
      id: row.id,
      at: row.at,
      agentUrl: row.agent_url,
      protocol: row.protocol,
      tool: row.tool,
      status: row.status,
      record: JSON.parse(row.record) as Record<string, unknown>,
    };
  }

  export(): HistoryExport {
    const calls = this.list(MAX_KEPT_CALLS)
      .map((c) => this.get(c.id))
      .filter((c): c is HistoryEntry => c !== undefined);
    return { format: 'adcp-inspect-history', version: 1, exportedAt: new Date().toISOString(), calls };
  }

  clear(): void {
    this.#db.prepare('DELETE FROM inspect_calls').run();
  }

  close(): void {
    this.#db.close();
  }
}
