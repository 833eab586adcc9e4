import { randomUUID } from 'node:crypto';
import type {
  AbandonTasksOptions,
  CreateTaskInput,
  CreateTaskOutcome,
  ListTasksOptions,
  StoredTask,
  TaskKind,
  TaskPage,
  TaskStore,
  TaskUpdate,
  UpdateTaskOutcome,
} from './task-store.js';
import { TERMINAL_TASK_STATUSES } from './task-store.js';
import { openSqliteFile, type SqliteDatabase } from './sqlite-database.js';
import { OUTBOX_SCHEMA, SqliteWebhookOutbox } from './sqlite-webhook-outbox.js';
import { OUTBOX_RETENTION_MS } from './webhook-outbox.js';
import type { TaskPolicy } from './task-policy.js';
import {
  cancelledStatus,
  clampTtl,
  decodeTaskCursor,
  encodeTaskCursor,
  pageSize,
  resolveTaskPolicy,
} from './task-policy.js';

export interface SqliteTaskStoreOptions {
  /** Database file (created if missing); `:memory:` for a private in-memory database. */
  path: string;
  policy?: Partial<TaskPolicy>;
  /** How often expired rows are swept in the background (ms); 0 turns it off. Default 60 s. */
  sweepIntervalMs?: number;
}

interface Row {
  task_id: string;
  owner: string;
  kind: string;
  task_type: string | null;
  status: string;
  status_message: string | null;
  ttl_ms: number | null;
  poll_interval_ms: number;
  created_at: number;
  last_updated_at: number;
  expires_at: number | null;
  request_json: string | null;
  result_json: string | null;
  runner?: string | null;
  lease_expires_at?: number | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS adcp_server_tasks (
  task_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  kind TEXT NOT NULL,
  task_type TEXT,
  status TEXT NOT NULL,
  status_message TEXT,
  ttl_ms INTEGER,
  poll_interval_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  last_updated_at INTEGER NOT NULL,
  expires_at INTEGER,
  request_json TEXT,
  result_json TEXT,
  runner TEXT,
  lease_expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS adcp_server_tasks_owner ON adcp_server_tasks (owner, created_at DESC, task_id DESC);
CREATE INDEX IF NOT EXISTS adcp_server_tasks_expiry ON adcp_server_tasks (expires_at);
`;

const TERMINAL_SQL = TERMINAL_TASK_STATUSES.map((s) => `'${s}'`).join(', ');

function toTask(row: Row): StoredTask {
  const task: StoredTask = {
    taskId: row.task_id,
    owner: row.owner,
    kind: row.kind as TaskKind,
    status: row.status,
    ttlMs: row.ttl_ms,
    pollIntervalMs: row.poll_interval_ms,
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
    expiresAt: row.expires_at,
  };
  if (row.task_type !== null) task.taskType = row.task_type;
  if (row.status_message !== null) task.statusMessage = row.status_message;
  if (row.request_json !== null) task.request = JSON.parse(row.request_json);
  if (row.result_json !== null) task.result = JSON.parse(row.result_json);
  return task;
}

/** Files made before task leases get the two columns (a row without a lease counts as lapsed). */
function addLeaseColumns(db: SqliteDatabase): void {
  const columns = new Set(
    db
      .prepare<[], { name: string }>('PRAGMA table_info(adcp_server_tasks)')
      .all()
      .map((c) => c.name),
  );
  if (!columns.has('runner')) db.exec('ALTER TABLE adcp_server_tasks ADD COLUMN runner TEXT');
  if (!columns.has('lease_expires_at')) db.exec('ALTER TABLE adcp_server_tasks ADD COLUMN lease_expires_at INTEGER');
  db.exec(
    `CREATE INDEX IF NOT EXISTS adcp_server_tasks_runner ON adcp_server_tasks (runner) WHERE status NOT IN (${TERMINAL_SQL})`,
  );
}

/** The embedded default task store: one SQLite file (WAL), safe for several processes on one host. */
export class SqliteTaskStore implements TaskStore {
  readonly leaseMs: number;
  /** Absent for `:memory:`: a database that dies with the process has nothing to hand on. */
  readonly outbox?: SqliteWebhookOutbox;
  readonly #policy: TaskPolicy;
  readonly #db: SqliteDatabase;
  // This handle's identity as the runner of the tasks it creates (see TaskStore.renewLeases).
  readonly #runner = randomUUID();
  readonly #sql: ReturnType<typeof prepare>;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(options: SqliteTaskStoreOptions) {
    this.#policy = resolveTaskPolicy(options.policy);
    this.leaseMs = this.#policy.leaseMs;
    const db = openSqliteFile(options.path, 'The SQLite task store');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    addLeaseColumns(db);
    db.exec(OUTBOX_SCHEMA);
    this.#db = db;
    const outbox = options.path === ':memory:' ? undefined : new SqliteWebhookOutbox(db, this.#runner);
    if (outbox !== undefined) this.outbox = outbox;
    this.#sql = prepare(db, this.#policy, this.#runner, outbox);
    const sweepEvery = options.sweepIntervalMs ?? 60_000;
    this.#timer = sweepEvery > 0 ? setInterval(() => void this.sweep(), sweepEvery) : undefined;
    this.#timer?.unref();
  }

  async create(input: CreateTaskInput): Promise<CreateTaskOutcome> {
    return this.#sql.create.immediate(input, input.now ?? Date.now());
  }

  async get(owner: string, taskId: string, now = Date.now()): Promise<StoredTask | undefined> {
    const row = this.#sql.selectLive.get(taskId, owner, now);
    return row === undefined ? undefined : toTask(row);
  }

  async update(owner: string, taskId: string, change: TaskUpdate): Promise<UpdateTaskOutcome> {
    return this.#sql.update(owner, taskId, change);
  }

  async cancel(owner: string, taskId: string, now = Date.now()): Promise<UpdateTaskOutcome> {
    const row = this.#sql.selectLive.get(taskId, owner, now);
    if (row === undefined) return { ok: false, reason: 'not_found' };
    return this.#sql.update(owner, taskId, { status: cancelledStatus(row.kind as TaskKind), now });
  }

  async list(owner: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const now = options.now ?? Date.now();
    const after = options.cursor === undefined ? undefined : decodeTaskCursor(options.cursor);
    if (options.cursor !== undefined && after === undefined) throw new RangeError('invalid task list cursor');
    const size = pageSize(this.#policy, options.limit);
    const where = ['owner = ?', '(expires_at IS NULL OR expires_at > ?)'];
    const params: (string | number)[] = [owner, now];
    if (options.kind !== undefined) {
      where.push('kind = ?');
      params.push(options.kind);
    }
    if (options.statuses !== undefined) {
      if (options.statuses.length === 0) return { tasks: [] };
      where.push(`status IN (${options.statuses.map(() => '?').join(', ')})`);
      params.push(...options.statuses);
    }
    if (after !== undefined) {
      where.push('(created_at < ? OR (created_at = ? AND task_id < ?))');
      params.push(after.createdAt, after.createdAt, after.taskId);
    }
    const rows = this.#db
      .prepare<(string | number)[], Row>(
        `SELECT * FROM adcp_server_tasks WHERE ${where.join(' AND ')} ORDER BY created_at DESC, task_id DESC LIMIT ?`,
      )
      .all(...params, size + 1);
    const page = rows.slice(0, size).map(toTask);
    const last = page[page.length - 1];
    return rows.length > size && last !== undefined
      ? { tasks: page, nextCursor: encodeTaskCursor(last.createdAt, last.taskId) }
      : { tasks: page };
  }

  async sweep(now = Date.now()): Promise<number> {
    this.outbox?.sweep(now - OUTBOX_RETENTION_MS);
    return this.#sql.deleteExpired.run(now).changes;
  }

  async renewLeases(now = Date.now()): Promise<number> {
    return this.#sql.renew.run({ runner: this.#runner, now, lease: now + this.#policy.leaseMs }).changes;
  }

  async abandonUnfinished(kind: TaskKind, options: AbandonTasksOptions): Promise<number> {
    return this.#sql.abandon.immediate(kind, options);
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#db.open) this.#db.close();
  }
}

/** The statements of one database handle, made once; `runner` names this handle's tasks. */
function prepare(db: SqliteDatabase, policy: TaskPolicy, runner: string, outbox: SqliteWebhookOutbox | undefined) {
  const liveWhere = 'task_id = ? AND owner = ? AND (expires_at IS NULL OR expires_at > ?)';
  const countRecent = db.prepare<[string, number], { n: number; oldest: number | null }>(
    'SELECT count(*) AS n, min(created_at) AS oldest FROM adcp_server_tasks WHERE owner = ? AND created_at > ?',
  );
  const countHeld = db.prepare<[string, number], { n: number; soonest: number | null }>(
    `SELECT count(*) AS n, min(expires_at) AS soonest FROM adcp_server_tasks
     WHERE owner = ? AND (expires_at IS NULL OR expires_at > ?)`,
  );
  const insert = db.prepare(
    `INSERT INTO adcp_server_tasks (task_id, owner, kind, task_type, status, status_message, ttl_ms,
       poll_interval_ms, created_at, last_updated_at, expires_at, request_json, result_json, runner, lease_expires_at)
     VALUES (@task_id, @owner, @kind, @task_type, @status, @status_message, @ttl_ms,
       @poll_interval_ms, @created_at, @last_updated_at, @expires_at, @request_json, @result_json,
       @runner, @lease_expires_at)`,
  );
  const selectLive = db.prepare<[string, string, number], Row>(`SELECT * FROM adcp_server_tasks WHERE ${liveWhere}`);
  const updateLive = db.prepare(
    `UPDATE adcp_server_tasks SET
       status = coalesce(@status, status),
       status_message = coalesce(@status_message, status_message),
       result_json = CASE WHEN @set_result THEN @result_json ELSE result_json END,
       last_updated_at = @now
     WHERE task_id = @task_id AND owner = @owner AND (expires_at IS NULL OR expires_at > @now)
       AND status NOT IN (${TERMINAL_SQL})`,
  );
  const abandonWhere = `kind = @kind AND (expires_at IS NULL OR expires_at > @now) AND status NOT IN (${TERMINAL_SQL})
       AND (lease_expires_at IS NULL OR lease_expires_at <= @now)`;
  const abandonUpdate = db.prepare(
    `UPDATE adcp_server_tasks SET status = 'failed', status_message = @message,
       result_json = CASE WHEN @set_result THEN @result_json ELSE result_json END, last_updated_at = @now
     WHERE ${abandonWhere}`,
  );
  const abandoning = db.prepare<{ kind: string; now: number }, { task_id: string }>(
    `SELECT task_id FROM adcp_server_tasks WHERE ${abandonWhere}`,
  );
  const selectById = db.prepare<[string], Row>('SELECT * FROM adcp_server_tasks WHERE task_id = ?');
  // With the webhooks the failures owe, in the same transaction.
  const abandon = db.transaction((kind: TaskKind, options: AbandonTasksOptions): number => {
    const now = options.now ?? Date.now();
    const ids =
      options.webhookFor === undefined || outbox === undefined
        ? []
        : abandoning.all({ kind, now }).map((r) => r.task_id);
    const changes = abandonUpdate.run({
      kind,
      message: options.statusMessage,
      now,
      set_result: options.result === undefined ? 0 : 1,
      result_json: options.result === undefined ? null : JSON.stringify(options.result),
    }).changes;
    for (const id of ids) {
      const row = selectById.get(id);
      const owed = row === undefined ? undefined : options.webhookFor?.(toTask(row));
      if (owed !== undefined) outbox?.insert({ ...owed, taskId: id }, now);
    }
    return changes;
  });
  const renew = db.prepare(
    `UPDATE adcp_server_tasks SET lease_expires_at = @lease
     WHERE runner = @runner AND status NOT IN (${TERMINAL_SQL}) AND (expires_at IS NULL OR expires_at > @now)`,
  );
  const deleteExpired = db.prepare('DELETE FROM adcp_server_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?');

  const createTx = db.transaction((input: CreateTaskInput, now: number): CreateTaskOutcome => {
    const recent = countRecent.get(input.owner, now - policy.rateLimit.windowMs);
    if (recent !== undefined && recent.n >= policy.rateLimit.max) {
      const oldest = recent.oldest ?? now;
      return { ok: false, reason: 'rate_limited', retryAfterMs: Math.max(1, oldest + policy.rateLimit.windowMs - now) };
    }
    const held = countHeld.get(input.owner, now);
    if (held !== undefined && held.n >= policy.maxTasksPerOwner) {
      const wait = held.soonest === null ? policy.maxTtlMs : held.soonest - now;
      return { ok: false, reason: 'too_many_tasks', retryAfterMs: Math.max(1, wait) };
    }
    const ttlMs = clampTtl(policy, input.requestedTtlMs);
    const row: Row = {
      task_id: input.taskId ?? randomUUID(),
      owner: input.owner,
      kind: input.kind,
      task_type: input.taskType ?? null,
      status: input.status ?? 'working',
      status_message: input.statusMessage ?? null,
      ttl_ms: ttlMs,
      poll_interval_ms: policy.pollIntervalMs,
      created_at: now,
      last_updated_at: now,
      expires_at: now + ttlMs,
      request_json: input.request === undefined ? null : JSON.stringify(input.request),
      result_json: null,
    };
    try {
      insert.run({ ...row, runner, lease_expires_at: now + policy.leaseMs });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new RangeError(`task id already exists: ${row.task_id}`);
      }
      throw error;
    }
    return { ok: true, task: toTask(row) };
  });

  // With a webhook, the outbox row is written in the same transaction, only if the status changed.
  const updateWithWebhook = db.transaction((values: Record<string, unknown>, change: TaskUpdate, now: number) => {
    const info = updateLive.run(values);
    if (info.changes === 1 && change.webhook !== undefined) {
      outbox?.insert({ ...change.webhook, taskId: values.task_id as string }, now);
    }
    return info;
  });
  const update = (owner: string, taskId: string, change: TaskUpdate): UpdateTaskOutcome => {
    const now = change.now ?? Date.now();
    const values = {
      task_id: taskId,
      owner,
      now,
      status: change.status ?? null,
      status_message: change.statusMessage ?? null,
      set_result: change.result === undefined ? 0 : 1,
      result_json: change.result === undefined ? null : JSON.stringify(change.result),
    };
    const info =
      change.webhook === undefined || outbox === undefined
        ? updateLive.run(values)
        : updateWithWebhook.immediate(values, change, now);
    const row = selectLive.get(taskId, owner, now);
    if (row === undefined) return { ok: false, reason: 'not_found' };
    return info.changes === 1 ? { ok: true, task: toTask(row) } : { ok: false, reason: 'terminal', task: toTask(row) };
  };

  return { create: createTx, selectLive, update, abandon, renew, deleteExpired };
}
