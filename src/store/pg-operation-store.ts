import { storeTarget } from '../core/store-target.js';
import type { OperationFilter, OperationRecord, OperationStore, OperationUpdate } from './types.js';
import { statusRank } from './types.js';
import { FINAL_RANK } from './operation-rules.js';
import { openPgDatabase, toMs, type PgDatabase, type PgStoreOptions } from './pg-database.js';

type CreateInput = Omit<OperationRecord, 'createdAt' | 'updatedAt'> & { now?: number };
type AdvanceInput = OperationUpdate & { now?: number; createIfMissing?: { agent: string; taskType: string } };

/** A row of `adcp_operations` as node-postgres returns it (bigints as strings). */
export interface PgOperationRow {
  operation_id: string;
  agent: string;
  task_type: string;
  task_id: string | null;
  status: string;
  result: string | null;
  status_at: string;
  created_at: string;
  updated_at: string;
}

export const OPERATION_COLUMNS =
  'operation_id, agent, task_type, task_id, status, result, status_at, created_at, updated_at';

const INSERT = `INSERT INTO adcp_operations
  (operation_id, agent, task_type, task_id, status, status_rank, result, status_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
  ON CONFLICT (operation_id) DO NOTHING
  RETURNING ${OPERATION_COLUMNS}`;

// The rule of ./operation-rules.ts (isForwardUpdate) as a WHERE clause, so the check and the
// write are one atomic statement: never out of a final status, never older, never a lower rank.
const ADVANCE = `UPDATE adcp_operations SET
    status = $2, status_rank = $3, status_at = $4, updated_at = $5,
    task_id = COALESCE($6, task_id), result = COALESCE($7, result)
  WHERE operation_id = $1 AND status_rank < ${FINAL_RANK} AND status_at <= $4 AND status_rank <= $3
  RETURNING ${OPERATION_COLUMNS}`;

// Create-or-advance in one round trip: the insert for a new operation, else the same forward
// rule as ADVANCE in the conflict branch's WHERE (agent, task type and created_at never change).
const UPSERT = `INSERT INTO adcp_operations AS o
  (operation_id, agent, task_type, task_id, status, status_rank, result, status_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
  ON CONFLICT (operation_id) DO UPDATE SET
    status = excluded.status, status_rank = excluded.status_rank, status_at = excluded.status_at,
    updated_at = excluded.updated_at, task_id = COALESCE(excluded.task_id, o.task_id),
    result = COALESCE(excluded.result, o.result)
  WHERE o.status_rank < ${FINAL_RANK} AND o.status_at <= excluded.status_at AND o.status_rank <= excluded.status_rank
  RETURNING ${OPERATION_COLUMNS}`;

const databases = new WeakMap<OperationStore, PgDatabase>();

/** The database a `PgOperationStore` writes to; undefined for any other store. */
export function pgDatabaseOf(store: OperationStore): PgDatabase | undefined {
  return databases.get(storeTarget(store));
}

/**
 * The shared `OperationStore` (`adcp_operations`). `advance` is a conditional UPDATE carrying
 * the state rank and the event timestamp in its WHERE clause, so webhooks and pollers in any
 * number of processes can race and an operation still never moves backwards.
 */
export class PgOperationStore implements OperationStore {
  readonly #db: PgDatabase;
  readonly #owned: boolean;

  constructor(options: PgStoreOptions) {
    const { database, owned } = openPgDatabase(options);
    this.#db = database;
    this.#owned = owned;
    databases.set(this, database);
  }

  async create(input: CreateInput): Promise<OperationRecord> {
    const now = input.now ?? Date.now();
    const { rows } = await this.#db.query<PgOperationRow>(
      'operation create',
      INSERT,
      insertParams(input.operationId, input.agent, input.taskType, input, now),
    );
    const row = rows[0] ?? (await this.#read(input.operationId));
    if (row === undefined) throw new Error(`operation ${input.operationId} vanished while being created`);
    return toOperationRecord(row);
  }

  async advance(
    operationId: string,
    input: AdvanceInput,
  ): Promise<{ applied: boolean; record: OperationRecord | undefined }> {
    const now = input.now ?? Date.now();
    if (input.createIfMissing !== undefined) {
      const { agent, taskType } = input.createIfMissing;
      const { rows } = await this.#db.query<PgOperationRow>(
        'operation advance',
        UPSERT,
        insertParams(operationId, agent, taskType, input, now),
      );
      if (rows[0] !== undefined) return { applied: true, record: toOperationRecord(rows[0]) };
    } else {
      const { rows } = await this.#db.query<PgOperationRow>('operation advance', ADVANCE, [
        operationId,
        input.status,
        statusRank(input.status),
        input.statusAt,
        now,
        input.taskId ?? null,
        toJson(input.result),
      ]);
      if (rows[0] !== undefined) return { applied: true, record: toOperationRecord(rows[0]) };
    }
    const current = await this.#read(operationId);
    return { applied: false, record: current === undefined ? undefined : toOperationRecord(current) };
  }

  async get(operationId: string): Promise<OperationRecord | undefined> {
    const row = await this.#read(operationId);
    return row === undefined ? undefined : toOperationRecord(row);
  }

  async list(filter: OperationFilter = {}): Promise<OperationRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.agent !== undefined) where.push(`agent = $${values.push(filter.agent)}`);
    if (filter.taskType !== undefined) where.push(`task_type = $${values.push(filter.taskType)}`);
    if (filter.statuses !== undefined) where.push(`status = ANY($${values.push(filter.statuses)}::text[])`);
    const limit = filter.limit !== undefined ? ` LIMIT $${values.push(Math.max(0, Math.floor(filter.limit)))}` : '';
    const { rows } = await this.#db.query<PgOperationRow>(
      'operation list',
      `SELECT ${OPERATION_COLUMNS} FROM adcp_operations${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}
       ORDER BY created_at, operation_id${limit}`,
      values,
    );
    return rows.map(toOperationRecord);
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#db.close();
  }

  async #read(operationId: string): Promise<PgOperationRow | undefined> {
    const { rows } = await this.#db.query<PgOperationRow>(
      'operation get',
      `SELECT ${OPERATION_COLUMNS} FROM adcp_operations WHERE operation_id = $1`,
      [operationId],
    );
    return rows[0];
  }
}

export function toJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export function toOperationRecord(row: PgOperationRow): OperationRecord {
  const record: OperationRecord = {
    operationId: row.operation_id,
    agent: row.agent,
    taskType: row.task_type,
    status: row.status,
    statusAt: toMs(row.status_at),
    createdAt: toMs(row.created_at),
    updatedAt: toMs(row.updated_at),
  };
  if (row.task_id !== null) record.taskId = row.task_id;
  if (row.result !== null) record.result = JSON.parse(row.result) as unknown;
  return record;
}

/** The parameters of INSERT and UPSERT, which take the same nine columns in the same order. */
function insertParams(
  operationId: string,
  agent: string,
  taskType: string,
  update: { taskId?: string; status: string; result?: unknown; statusAt: number },
  now: number,
): unknown[] {
  return [
    operationId,
    agent,
    taskType,
    update.taskId ?? null,
    update.status,
    statusRank(update.status),
    toJson(update.result),
    update.statusAt,
    now,
  ];
}
