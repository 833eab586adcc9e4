import type { PgDatabase, PgTransactionClient } from './pg-database.js';
import { toMs } from './pg-database.js';
import type { ClaimedWebhook, OutboxRow, OutboxState, OwedWebhook, WebhookOutbox } from './webhook-outbox.js';

/** The INSERT of an owed webhook, values $1-$7 (see `owedValues`). */
export const INSERT_OWED = `INSERT INTO adcp_webhook_outbox (id, task_id, destination_json, envelope_json, state,
    attempts, created_at, next_attempt_at, lease_owner, lease_expires_at)
  VALUES ($1, $2, $3, $4, 'pending', $5, $6, $6, $7, $8)`;

/** The values of `INSERT_OWED` for `owed`, written by `runner` at `now`. */
export function owedValues(owed: OwedWebhook, runner: string, now: number): unknown[] {
  const leased = owed.leaseMs !== undefined;
  return [
    owed.id,
    owed.taskId,
    JSON.stringify(owed.destination),
    JSON.stringify(owed.envelope),
    leased ? 1 : 0,
    now,
    leased ? runner : null,
    leased ? now + (owed.leaseMs as number) : 0,
  ];
}

/** Writes owed webhooks inside a transaction the caller holds. */
export async function insertOwed(
  client: PgTransactionClient,
  owed: OwedWebhook,
  runner: string,
  now: number,
): Promise<void> {
  await client.query(INSERT_OWED, owedValues(owed, runner, now));
}

interface ClaimRow {
  id: string;
  task_id: string;
  destination_json: string;
  envelope_json: string;
  attempts: number;
}

/** The outbox on PostgreSQL (`adcp_webhook_outbox`), shared by every instance of a fleet. */
export class PgWebhookOutbox implements WebhookOutbox {
  readonly #db: PgDatabase;
  readonly #runner: string;

  /** `runner`: the task store handle's identity, which holds the leases of what it sends. */
  constructor(db: PgDatabase, runner: string) {
    this.#db = db;
    this.#runner = runner;
  }

  async claim(options: { limit: number; leaseMs: number; now?: number }): Promise<ClaimedWebhook[]> {
    const now = options.now ?? Date.now();
    // SKIP LOCKED: instances polling at once take disjoint rows instead of queueing on each other.
    const { rows } = await this.#db.query<ClaimRow>(
      'outbox claim',
      `UPDATE adcp_webhook_outbox SET lease_owner = $1, lease_expires_at = $2, attempts = attempts + 1
         WHERE id IN (SELECT id FROM adcp_webhook_outbox
                        WHERE state = 'pending' AND next_attempt_at <= $3 AND lease_expires_at <= $3
                        ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
           AND state = 'pending' AND lease_expires_at <= $3
         RETURNING id, task_id, destination_json, envelope_json, attempts`,
      [this.#runner, now + options.leaseMs, now, options.limit],
    );
    return rows.map((row) => ({
      id: row.id,
      taskId: row.task_id,
      destination: JSON.parse(row.destination_json) as unknown,
      envelope: JSON.parse(row.envelope_json) as Record<string, unknown>,
      attempts: row.attempts,
    }));
  }

  async settle(id: string, outcome: { state: 'delivered' | 'failed'; error?: string; now?: number }): Promise<void> {
    await this.#db.query(
      'outbox settle',
      `UPDATE adcp_webhook_outbox SET state = $2, settled_at = $3, last_error = $4, lease_owner = NULL
         WHERE id = $1 AND state = 'pending'`,
      [id, outcome.state, outcome.now ?? Date.now(), outcome.error ?? null],
    );
  }

  async retryAt(id: string, at: number, error?: string): Promise<void> {
    // Only while this handle still holds it: a sender that took it over after a lapse decides.
    await this.#db.query(
      'outbox retry',
      `UPDATE adcp_webhook_outbox SET next_attempt_at = $2, lease_expires_at = 0, lease_owner = NULL, last_error = $3
         WHERE id = $1 AND state = 'pending' AND lease_owner = $4`,
      [id, at, error ?? null, this.#runner],
    );
  }

  async postpone(id: string, at: number): Promise<void> {
    await this.#db.query(
      'outbox postpone',
      `UPDATE adcp_webhook_outbox SET attempts = GREATEST(attempts - 1, 0), next_attempt_at = $2,
         lease_expires_at = 0, lease_owner = NULL
         WHERE id = $1 AND state = 'pending' AND lease_owner = $3`,
      [id, at, this.#runner],
    );
  }

  async release(): Promise<number> {
    const result = await this.#db.query(
      'outbox release',
      `UPDATE adcp_webhook_outbox SET lease_expires_at = 0, lease_owner = NULL
         WHERE lease_owner = $1 AND state = 'pending'`,
      [this.#runner],
    );
    return result.rowCount ?? 0;
  }

  async list(taskId: string): Promise<OutboxRow[]> {
    const { rows } = await this.#db.query<{
      id: string;
      task_id: string;
      state: string;
      attempts: number;
      last_error: string | null;
      created_at: string;
    }>(
      'outbox list',
      'SELECT id, task_id, state, attempts, last_error, created_at FROM adcp_webhook_outbox WHERE task_id = $1 ORDER BY created_at, id',
      [taskId],
    );
    return rows.map((row) => ({
      id: row.id,
      taskId: row.task_id,
      state: row.state as OutboxState,
      attempts: row.attempts,
      ...(row.last_error === null ? {} : { lastError: row.last_error }),
    }));
  }

  /** Deletes rows settled before `before`. */
  async sweep(before: number): Promise<number> {
    const result = await this.#db.query(
      'outbox sweep',
      `DELETE FROM adcp_webhook_outbox WHERE state <> 'pending' AND settled_at <= $1`,
      [before],
    );
    return toMs(result.rowCount ?? 0);
  }
}
