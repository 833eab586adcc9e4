import type { SqliteDatabase } from './sqlite-database.js';
import type { SqliteDatabase as SqliteConnection } from './sqlite-options.js';
import type { ClaimedWebhook, OutboxRow, OutboxState, OwedWebhook, WebhookOutbox } from './webhook-outbox.js';

export const OUTBOX_SCHEMA = `
CREATE TABLE IF NOT EXISTS adcp_webhook_outbox (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  destination_json TEXT NOT NULL,
  envelope_json TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_expires_at INTEGER NOT NULL,
  settled_at INTEGER,
  last_error TEXT
);
CREATE INDEX IF NOT EXISTS adcp_webhook_outbox_due ON adcp_webhook_outbox (next_attempt_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS adcp_webhook_outbox_task ON adcp_webhook_outbox (task_id);
`;

interface Row {
  id: string;
  task_id: string;
  destination_json: string;
  envelope_json: string;
  state: string;
  attempts: number;
  last_error: string | null;
}

/** The outbox in the task store's SQLite file (several processes on one host share it). */
export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly #runner: string;
  readonly #sql: ReturnType<typeof prepare>;

  /** `runner`: the task store handle's identity, which holds the leases of what it sends. */
  constructor(db: SqliteConnection, runner: string) {
    this.#runner = runner;
    this.#sql = prepare(db as SqliteDatabase);
  }

  /** Writes `owed` (call inside the transaction that changes the task's status). */
  insert(owed: OwedWebhook, now: number): void {
    const leased = owed.leaseMs !== undefined;
    this.#sql.insert.run({
      id: owed.id,
      task_id: owed.taskId,
      destination_json: JSON.stringify(owed.destination),
      envelope_json: JSON.stringify(owed.envelope),
      attempts: leased ? 1 : 0,
      now,
      lease_owner: leased ? this.#runner : null,
      lease_expires_at: leased ? now + (owed.leaseMs as number) : 0,
    });
  }

  async claim(options: { limit: number; leaseMs: number; now?: number }): Promise<ClaimedWebhook[]> {
    const now = options.now ?? Date.now();
    return this.#sql.claim.immediate(this.#runner, now, now + options.leaseMs, options.limit);
  }

  async settle(id: string, outcome: { state: 'delivered' | 'failed'; error?: string; now?: number }): Promise<void> {
    this.#sql.settle.run(outcome.state, outcome.now ?? Date.now(), outcome.error ?? null, id);
  }

  async retryAt(id: string, at: number, error?: string): Promise<void> {
    this.#sql.retry.run(at, error ?? null, id, this.#runner);
  }

  async postpone(id: string, at: number): Promise<void> {
    this.#sql.postpone.run(at, id, this.#runner);
  }

  async release(): Promise<number> {
    return this.#sql.release.run(this.#runner).changes;
  }

  async list(taskId: string): Promise<OutboxRow[]> {
    return this.#sql.list.all(taskId).map((row) => ({
      id: row.id,
      taskId: row.task_id,
      state: row.state as OutboxState,
      attempts: row.attempts,
      ...(row.last_error === null ? {} : { lastError: row.last_error }),
    }));
  }

  /** Deletes rows settled before `before`. */
  sweep(before: number): number {
    return this.#sql.sweep.run(before).changes;
  }
}

function prepare(db: SqliteDatabase) {
  const insert = db.prepare(
    `INSERT INTO adcp_webhook_outbox (id, task_id, destination_json, envelope_json, state, attempts, created_at,
       next_attempt_at, lease_owner, lease_expires_at)
     VALUES (@id, @task_id, @destination_json, @envelope_json, 'pending', @attempts, @now, @now, @lease_owner,
       @lease_expires_at)`,
  );
  const due = db.prepare<[number, number, number], Row>(
    `SELECT * FROM adcp_webhook_outbox WHERE state = 'pending' AND next_attempt_at <= ? AND lease_expires_at <= ?
     ORDER BY next_attempt_at LIMIT ?`,
  );
  const take = db.prepare(
    'UPDATE adcp_webhook_outbox SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?',
  );
  // BEGIN IMMEDIATE: one writer at a time on the file, so two processes never take one row.
  const claim = db.transaction((runner: string, now: number, leaseUntil: number, limit: number) =>
    due.all(now, now, limit).map((row): ClaimedWebhook => {
      take.run(runner, leaseUntil, row.id);
      return {
        id: row.id,
        taskId: row.task_id,
        destination: JSON.parse(row.destination_json) as unknown,
        envelope: JSON.parse(row.envelope_json) as Record<string, unknown>,
        attempts: row.attempts + 1,
      };
    }),
  );
  const settle = db.prepare(
    `UPDATE adcp_webhook_outbox SET state = ?, settled_at = ?, last_error = ?, lease_owner = NULL
     WHERE id = ? AND state = 'pending'`,
  );
  const retry = db.prepare(
    `UPDATE adcp_webhook_outbox SET next_attempt_at = ?, lease_expires_at = 0, lease_owner = NULL, last_error = ?
     WHERE id = ? AND state = 'pending' AND lease_owner = ?`,
  );
  const postpone = db.prepare(
    `UPDATE adcp_webhook_outbox SET attempts = MAX(attempts - 1, 0), next_attempt_at = ?, lease_expires_at = 0,
       lease_owner = NULL WHERE id = ? AND state = 'pending' AND lease_owner = ?`,
  );
  const release = db.prepare(
    "UPDATE adcp_webhook_outbox SET lease_expires_at = 0, lease_owner = NULL WHERE lease_owner = ? AND state = 'pending'",
  );
  const list = db.prepare<[string], Row>(
    'SELECT * FROM adcp_webhook_outbox WHERE task_id = ? ORDER BY created_at, rowid',
  );
  const sweep = db.prepare("DELETE FROM adcp_webhook_outbox WHERE state <> 'pending' AND settled_at <= ?");
  return { insert, claim, settle, retry, postpone, release, list, sweep };
}
