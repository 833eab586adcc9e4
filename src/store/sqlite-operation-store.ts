import type { OperationFilter, OperationRecord, OperationStore, OperationUpdate } from './types.js';
import { statusRank } from './types.js';
import { FINAL_RANK } from './operation-rules.js';
import { migrateSqlite, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import type { SqliteStoreOptions } from './sqlite-options.js';
import { writeBatcherFor, type SqliteWriteBatcher } from './sqlite-write-batcher.js';

const MIGRATIONS = [
  `CREATE TABLE operations (
     operation_id TEXT PRIMARY KEY,
     agent TEXT NOT NULL,
     task_type TEXT NOT NULL,
     task_id TEXT,
     status TEXT NOT NULL,
     status_rank INTEGER NOT NULL,
     result TEXT,
     status_at INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX operations_agent ON operations (agent, created_at);`,
] as const;

interface Row {
  operation_id: string;
  agent: string;
  task_type: string;
  task_id: string | null;
  status: string;
  result: string | null;
  status_at: number;
  created_at: number;
  updated_at: number;
}

type CreateInput = Omit<OperationRecord, 'createdAt' | 'updatedAt'> & { now?: number };
type AdvanceInput = OperationUpdate & { now?: number; createIfMissing?: { agent: string; taskType: string } };

/**
 * The embedded `OperationStore`. `advance` is one conditional UPDATE (not final yet, event not
 * older, rank not lower), so a stale or replayed webhook can never move an operation backwards,
 * whichever process applies it.
 */
export class SqliteOperationStore implements OperationStore {
  readonly #db: SqliteDatabase;
  readonly #owned: boolean;
  readonly #writes: SqliteWriteBatcher;
  readonly #insert;
  readonly #update;
  readonly #get;

  constructor(options: SqliteStoreOptions) {
    const { db, owned } = openSqliteDatabase(options);
    this.#db = db;
    this.#owned = owned;
    this.#writes = writeBatcherFor(db);
    migrateSqlite(db, 'operations', MIGRATIONS);
    this.#insert = db.prepare(
      `INSERT INTO operations (operation_id, agent, task_type, task_id, status, status_rank, result, status_at, created_at, updated_at)
       VALUES (@operationId, @agent, @taskType, @taskId, @status, @rank, @result, @statusAt, @now, @now)
       ON CONFLICT (operation_id) DO NOTHING`,
    );
    this.#update = db.prepare(
      `UPDATE operations SET status = @status, status_rank = @rank, status_at = @statusAt, updated_at = @now,
         task_id = COALESCE(@taskId, task_id), result = COALESCE(@result, result)
       WHERE operation_id = @operationId AND status_rank < ${FINAL_RANK} AND status_at <= @statusAt AND status_rank <= @rank`,
    );
    this.#get = db.prepare('SELECT * FROM operations WHERE operation_id = ?');
  }

  async create(input: CreateInput): Promise<OperationRecord> {
    const now = input.now ?? Date.now();
    return this.#writes.run(() => {
      this.#insert.run(insertParams(input, now));
      return this.#read(input.operationId) as OperationRecord;
    });
  }

  async advance(
    operationId: string,
    input: AdvanceInput,
  ): Promise<{ applied: boolean; record: OperationRecord | undefined }> {
    const now = input.now ?? Date.now();
    return this.#writes.run(() => this.#advance(operationId, input, now));
  }

  #advance(
    operationId: string,
    input: AdvanceInput,
    now: number,
  ): { applied: boolean; record: OperationRecord | undefined } {
    if (input.createIfMissing !== undefined) {
      const fields: CreateInput = { operationId, ...input.createIfMissing, ...updateFields(input) };
      if (this.#insert.run(insertParams(fields, now)).changes === 1) {
        // Just inserted: the record is what was written (results round-trip through JSON text).
        const record: OperationRecord = { ...fields, createdAt: now, updatedAt: now };
        if (fields.result !== undefined) record.result = JSON.parse(JSON.stringify(fields.result)) as unknown;
        return { applied: true, record };
      }
    }
    const params = {
      operationId,
      status: input.status,
      rank: statusRank(input.status),
      statusAt: input.statusAt,
      now,
      taskId: input.taskId ?? null,
      result: input.result === undefined ? null : JSON.stringify(input.result),
    };
    const applied = this.#update.run(params).changes === 1;
    return { applied, record: this.#read(operationId) };
  }

  async get(operationId: string): Promise<OperationRecord | undefined> {
    return this.#read(operationId);
  }

  async list(filter: OperationFilter = {}): Promise<OperationRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.agent !== undefined) {
      where.push('agent = ?');
      params.push(filter.agent);
    }
    if (filter.taskType !== undefined) {
      where.push('task_type = ?');
      params.push(filter.taskType);
    }
    if (filter.statuses !== undefined) {
      if (filter.statuses.length === 0) return [];
      where.push(`status IN (${filter.statuses.map(() => '?').join(', ')})`);
      params.push(...filter.statuses);
    }
    const limit = filter.limit === undefined ? -1 : Math.max(0, Math.floor(filter.limit));
    const sql = `SELECT * FROM operations ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
                 ORDER BY created_at, operation_id LIMIT ?`;
    const rows = this.#db.prepare(sql).all(...params, limit) as Row[];
    return rows.map(toRecord);
  }

  async close(): Promise<void> {
    if (!this.#db.open) return;
    await this.#writes.run(() => undefined); // let queued writes commit first
    if (this.#owned && this.#db.open) this.#db.close();
  }

  #read(operationId: string): OperationRecord | undefined {
    const row = this.#get.get(operationId) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }
}

function updateFields(update: OperationUpdate): Omit<CreateInput, 'operationId' | 'agent' | 'taskType'> {
  return {
    status: update.status,
    statusAt: update.statusAt,
    ...(update.taskId !== undefined ? { taskId: update.taskId } : {}),
    ...(update.result !== undefined ? { result: update.result } : {}),
  };
}

function insertParams(input: CreateInput, now: number): Record<string, unknown> {
  return {
    operationId: input.operationId,
    agent: input.agent,
    taskType: input.taskType,
    taskId: input.taskId ?? null,
    status: input.status,
    rank: statusRank(input.status),
    result: input.result === undefined ? null : JSON.stringify(input.result),
    statusAt: input.statusAt,
    now,
  };
}

function toRecord(row: Row): OperationRecord {
  const record: OperationRecord = {
    operationId: row.operation_id,
    agent: row.agent,
    taskType: row.task_type,
    status: row.status,
    statusAt: row.status_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.task_id !== null) record.taskId = row.task_id;
  if (row.result !== null) record.result = JSON.parse(row.result) as unknown;
  return record;
}
