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
import type { TaskPolicy } from './task-policy.js';
import { clampTtl, decodeTaskCursor, encodeTaskCursor, pageSize, resolveTaskPolicy } from './task-policy.js';
import { openPgDatabase, toMs, type PgDatabase, type PgStoreOptions } from './pg-database.js';
import { sweepInBatches } from './pg-sweep.js';
import { insertOwed, owedValues, PgWebhookOutbox } from './pg-webhook-outbox.js';
import { OUTBOX_RETENTION_MS } from './webhook-outbox.js';

export type PgTaskStoreOptions = PgStoreOptions & {
  policy?: Partial<TaskPolicy>;
  /** How often this process sweeps expired rows in the background (ms); 0 turns it off. Default 60 s. */
  sweepIntervalMs?: number;
};

interface Row {
  task_id: string;
  owner: string;
  kind: string;
  task_type: string | null;
  status: string;
  status_message: string | null;
  ttl_ms: string | null;
  poll_interval_ms: string;
  created_at: string;
  last_updated_at: string;
  expires_at: string | null;
  request_json: string | null;
  result_json: string | null;
}

/** CREATE's row: the counts, then the task's columns (all NULL when nothing was inserted). */
type CreateRow = { [K in keyof Row]: Row[K] | null } & {
  recent_n: string;
  recent_oldest: string | null;
  held_n: string;
  held_soonest: string | null;
};

const TERMINAL_SQL = TERMINAL_TASK_STATUSES.map((s) => `'${s}'`).join(', ');
const LIVE = 'task_id = $1 AND owner = $2 AND (expires_at IS NULL OR expires_at > $3)';
const SWEEP_BATCH = 500;

// One conditional UPDATE: the owner, the expiry and "not terminal" are all in the WHERE clause,
// so two instances finishing or cancelling the same task cannot both win.
const UPDATE = `UPDATE adcp_server_tasks SET
    status = CASE WHEN $4::boolean THEN (CASE kind WHEN 'mcp' THEN 'cancelled' ELSE 'canceled' END)
                  ELSE coalesce($5, status) END,
    status_message = coalesce($6, status_message),
    result_json = CASE WHEN $7::boolean THEN $8 ELSE result_json END,
    last_updated_at = $3
  WHERE ${LIVE} AND status NOT IN (${TERMINAL_SQL})
  RETURNING *`;

// The same update with the webhook it owes, in one statement: the outbox row exists exactly when
// the status changed ($9-$16: `owedValues`).
const UPDATE_WITH_WEBHOOK = `WITH changed AS (${UPDATE}),
  owed AS (INSERT INTO adcp_webhook_outbox (id, task_id, destination_json, envelope_json, state,
             attempts, created_at, next_attempt_at, lease_owner, lease_expires_at)
           SELECT $9::text, $10::text, $11::text, $12::text, 'pending', $13::integer, $14::bigint, $14::bigint,
                  $15::text, $16::bigint FROM changed)
  SELECT * FROM changed`;

const LOCK_OWNER = 'SELECT pg_advisory_xact_lock(1633969008, hashtext($1))';

// Task create after LOCK_OWNER, in one statement: the owner's creates in the rate-limit window
// ($14: its start, $15: the most) and its live tasks ($16: the cap), and the insert only when
// both are under their limits. One row always: the counts, and the new task's columns (NULL when
// a limit held it back or the id exists).
const CREATE = `WITH recent AS (
    SELECT count(*) AS n, min(created_at) AS oldest FROM adcp_server_tasks WHERE owner = $2 AND created_at > $14),
  held AS (
    SELECT count(*) AS n, min(expires_at) AS soonest FROM adcp_server_tasks
      WHERE owner = $2 AND (expires_at IS NULL OR expires_at > $9)),
  inserted AS (
    INSERT INTO adcp_server_tasks (task_id, owner, kind, task_type, status, status_message, ttl_ms,
        poll_interval_ms, created_at, last_updated_at, expires_at, request_json, result_json, runner,
        lease_expires_at)
      SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bigint, $8::bigint, $9::bigint,
             $9::bigint, $10::bigint, $11::text, NULL, $12::text, $13::bigint
        FROM recent, held WHERE recent.n < $15::bigint AND held.n < $16::bigint
      ON CONFLICT (task_id) DO NOTHING RETURNING *)
  SELECT recent.n AS recent_n, recent.oldest AS recent_oldest, held.n AS held_n, held.soonest AS held_soonest,
         inserted.*
    FROM recent CROSS JOIN held LEFT JOIN inserted ON true`;

const ABANDON_WHERE = `kind = $1 AND status NOT IN (${TERMINAL_SQL}) AND (expires_at IS NULL OR expires_at > $5)
           AND (lease_expires_at IS NULL OR lease_expires_at <= $5)`;
const ABANDON = `UPDATE adcp_server_tasks SET status = 'failed', status_message = $2,
           result_json = CASE WHEN $3::boolean THEN $4 ELSE result_json END, last_updated_at = $5
         WHERE ${ABANDON_WHERE}`;

/**
 * The shared task store (`adcp_server_tasks`): any instance of a seller fleet reads, updates
 * and cancels any task, still scoped to its owner. The per-owner creation rate limit and task cap
 * count and insert under a transaction-scoped advisory lock on the owner, so they hold across
 * processes.
 */
export class PgTaskStore implements TaskStore {
  readonly leaseMs: number;
  readonly outbox: PgWebhookOutbox;
  readonly #policy: TaskPolicy;
  readonly #db: PgDatabase;
  readonly #owned: boolean;
  // This handle's identity as the runner of the tasks it creates (see TaskStore.renewLeases).
  readonly #runner = randomUUID();
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(options: PgTaskStoreOptions) {
    this.#policy = resolveTaskPolicy(options.policy);
    this.leaseMs = this.#policy.leaseMs;
    const { database, owned } = openPgDatabase(
      'database' in options ? { database: options.database } : stripStoreOptions(options),
    );
    this.#db = database;
    this.#owned = owned;
    this.outbox = new PgWebhookOutbox(database, this.#runner);
    const sweepEvery = options.sweepIntervalMs ?? 60_000;
    this.#timer =
      sweepEvery > 0 ? setInterval(() => void this.sweep(Date.now()).catch(() => undefined), sweepEvery) : undefined;
    this.#timer?.unref();
  }

  async #select(owner: string, taskId: string, now: number): Promise<Row | undefined> {
    const sql = `SELECT * FROM adcp_server_tasks WHERE ${LIVE}`;
    return (await this.#db.query<Row>('task get', sql, [taskId, owner, now])).rows[0];
  }

  async #change(owner: string, taskId: string, update: TaskUpdate & { cancel?: boolean }): Promise<UpdateTaskOutcome> {
    const now = update.now ?? Date.now();
    const values = [
      taskId,
      owner,
      now,
      update.cancel === true,
      update.status ?? null,
      update.statusMessage ?? null,
      update.result !== undefined,
      update.result === undefined ? null : JSON.stringify(update.result),
    ];
    const what = update.cancel === true ? 'task cancel' : 'task update';
    const webhook = update.webhook;
    const { rows } =
      webhook === undefined
        ? await this.#db.query<Row>(what, UPDATE, values)
        : await this.#db.query<Row>(what, UPDATE_WITH_WEBHOOK, [
            ...values,
            ...owedValues({ ...webhook, taskId }, this.#runner, now),
          ]);
    if (rows[0] !== undefined) return { ok: true, task: toTask(rows[0]) };
    const row = await this.#select(owner, taskId, now);
    return row === undefined
      ? { ok: false, reason: 'not_found' }
      : { ok: false, reason: 'terminal', task: toTask(row) };
  }

  async sweep(now = Date.now()): Promise<number> {
    await this.outbox.sweep(now - OUTBOX_RETENTION_MS);
    return sweepInBatches(
      this.#db,
      'task sweep',
      `DELETE FROM adcp_server_tasks WHERE task_id IN (
           SELECT task_id FROM adcp_server_tasks WHERE expires_at IS NOT NULL AND expires_at <= $1
           LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)`,
      [now],
      SWEEP_BATCH,
    );
  }

  async create(input: CreateTaskInput): Promise<CreateTaskOutcome> {
    const now = input.now ?? Date.now();
    const policy = this.#policy;
    const runner = this.#runner;
    const ttlMs = clampTtl(policy, input.requestedTtlMs);
    const outcome = await this.#db.transaction('task create', async (client) => {
      // The lock first, in its own statement: the counts' snapshot is then taken after every
      // earlier create of this owner committed, in any process.
      await client.query(LOCK_OWNER, [input.owner]);
      const { rows } = await client.query<CreateRow>(CREATE, [
        input.taskId ?? randomUUID(),
        input.owner,
        input.kind,
        input.taskType ?? null,
        input.status ?? 'working',
        input.statusMessage ?? null,
        ttlMs,
        policy.pollIntervalMs,
        now,
        now + ttlMs,
        input.request === undefined ? null : JSON.stringify(input.request),
        runner,
        now + policy.leaseMs,
        now - policy.rateLimit.windowMs,
        policy.rateLimit.max,
        policy.maxTasksPerOwner,
      ]);
      const row = rows[0] as CreateRow;
      if (Number(row.recent_n) >= policy.rateLimit.max) {
        const oldest = row.recent_oldest === null ? now : toMs(row.recent_oldest);
        return {
          ok: false,
          reason: 'rate_limited',
          retryAfterMs: Math.max(1, oldest + policy.rateLimit.windowMs - now),
        } as const;
      }
      if (Number(row.held_n) >= policy.maxTasksPerOwner) {
        const wait = row.held_soonest === null ? policy.maxTtlMs : toMs(row.held_soonest) - now;
        return { ok: false, reason: 'too_many_tasks', retryAfterMs: Math.max(1, wait) } as const;
      }
      return row.task_id === null
        ? ({ ok: false, reason: 'duplicate' } as const)
        : ({ ok: true, task: toTask(row as Row) } as const);
    });
    if (outcome.ok === false && outcome.reason === 'duplicate') {
      throw new RangeError(`task id already exists: ${input.taskId ?? ''}`);
    }
    return outcome;
  }

  async get(owner: string, taskId: string, now = Date.now()): Promise<StoredTask | undefined> {
    const row = await this.#select(owner, taskId, now);
    return row === undefined ? undefined : toTask(row);
  }

  async update(owner: string, taskId: string, update: TaskUpdate): Promise<UpdateTaskOutcome> {
    return this.#change(owner, taskId, update);
  }

  async cancel(owner: string, taskId: string, now = Date.now()): Promise<UpdateTaskOutcome> {
    return this.#change(owner, taskId, { cancel: true, now });
  }

  async list(owner: string, options: ListTasksOptions = {}): Promise<TaskPage> {
    const now = options.now ?? Date.now();
    const after = options.cursor === undefined ? undefined : decodeTaskCursor(options.cursor);
    if (options.cursor !== undefined && after === undefined) throw new RangeError('invalid task list cursor');
    if (options.statuses !== undefined && options.statuses.length === 0) return { tasks: [] };
    const size = pageSize(this.#policy, options.limit);
    const values: unknown[] = [owner, now];
    const where = ['owner = $1', '(expires_at IS NULL OR expires_at > $2)'];
    if (options.kind !== undefined) where.push(`kind = $${values.push(options.kind)}`);
    if (options.statuses !== undefined) where.push(`status = ANY($${values.push(options.statuses)}::text[])`);
    if (after !== undefined) {
      const at = values.push(after.createdAt);
      where.push(`(created_at < $${at} OR (created_at = $${at} AND task_id < $${values.push(after.taskId)}))`);
    }
    const { rows } = await this.#db.query<Row>(
      'task list',
      `SELECT * FROM adcp_server_tasks WHERE ${where.join(' AND ')}
         ORDER BY created_at DESC, task_id DESC LIMIT $${values.push(size + 1)}`,
      values,
    );
    const page = rows.slice(0, size).map(toTask);
    const last = page[page.length - 1];
    return rows.length > size && last !== undefined
      ? { tasks: page, nextCursor: encodeTaskCursor(last.createdAt, last.taskId) }
      : { tasks: page };
  }

  async renewLeases(now = Date.now()): Promise<number> {
    const result = await this.#db.query(
      'task lease renewal',
      `UPDATE adcp_server_tasks SET lease_expires_at = $2
         WHERE runner = $1 AND status NOT IN (${TERMINAL_SQL}) AND (expires_at IS NULL OR expires_at > $3)`,
      [this.#runner, now + this.#policy.leaseMs, now],
    );
    return result.rowCount ?? 0;
  }

  async abandonUnfinished(kind: TaskKind, options: AbandonTasksOptions): Promise<number> {
    const now = options.now ?? Date.now();
    const values = [
      kind,
      options.statusMessage,
      options.result !== undefined,
      options.result === undefined ? null : JSON.stringify(options.result),
      now,
    ];
    // One conditional UPDATE: two instances reaping at once fail each task once; a task whose
    // runner renewed its lease in between is left alone.
    const webhookFor = options.webhookFor;
    if (webhookFor === undefined) {
      return (await this.#db.query('task abandon', ABANDON, values)).rowCount ?? 0;
    }
    // With the webhooks the failures owe, in the same transaction.
    const runner = this.#runner;
    return this.#db.transaction('task abandon', async (client) => {
      const { rows } = await client.query<Row>(`${ABANDON} RETURNING *`, values);
      for (const row of rows) {
        const owed = webhookFor(toTask(row));
        if (owed !== undefined) await insertOwed(client, { ...owed, taskId: row.task_id }, runner, now);
      }
      return rows.length;
    });
  }

  async releaseLeases(): Promise<number> {
    const result = await this.#db.query(
      'task lease release',
      `UPDATE adcp_server_tasks SET lease_expires_at = 0 WHERE runner = $1 AND status NOT IN (${TERMINAL_SQL})`,
      [this.#runner],
    );
    return result.rowCount ?? 0;
  }

  async cancelledAmong(taskIds: readonly string[]): Promise<string[]> {
    if (taskIds.length === 0) return [];
    const { rows } = await this.#db.query<{ task_id: string }>(
      'task cancel watch',
      `SELECT task_id FROM adcp_server_tasks WHERE task_id = ANY($1::text[]) AND status IN ('cancelled', 'canceled')`,
      [taskIds],
    );
    return rows.map((row) => row.task_id);
  }

  async ping(): Promise<void> {
    await this.#db.ping();
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#owned) await this.#db.close();
  }
}

function stripStoreOptions(options: PgTaskStoreOptions & { url: string }) {
  const { policy: _policy, sweepIntervalMs: _sweep, ...connect } = options;
  return connect;
}

function toTask(row: Row): StoredTask {
  const task: StoredTask = {
    taskId: row.task_id,
    owner: row.owner,
    kind: row.kind as TaskKind,
    status: row.status,
    ttlMs: row.ttl_ms === null ? null : toMs(row.ttl_ms),
    pollIntervalMs: toMs(row.poll_interval_ms),
    createdAt: toMs(row.created_at),
    lastUpdatedAt: toMs(row.last_updated_at),
    expiresAt: row.expires_at === null ? null : toMs(row.expires_at),
  };
  if (row.task_type !== null) task.taskType = row.task_type;
  if (row.status_message !== null) task.statusMessage = row.status_message;
  if (row.request_json !== null) task.request = JSON.parse(row.request_json) as unknown;
  if (row.result_json !== null) task.result = JSON.parse(row.result_json) as unknown;
  return task;
}
