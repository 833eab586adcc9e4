import { randomUUID } from 'node:crypto';
import type { ClaimAndAdvanceOutcome, ClaimAndAdvanceRequest } from './types.js';
import { statusRank } from './types.js';
import { FINAL_RANK } from './operation-rules.js';
import { toMs, type PgDatabase } from './pg-database.js';
import { judgeClaim } from './claim-store.js';
import { DEDUP_POLICY } from './claim-uses.js';
import { OPERATION_COLUMNS, toJson, toOperationRecord, type PgOperationRow } from './pg-operation-store.js';

// One statement, one transaction, one round trip for what the webhook receiver otherwise does in
// three (claim, read the operation, create-or-advance):
// - `cur` reads the operation; if it belongs to another agent or task type, nothing is claimed.
// - `taken` is the dedup claim of PgClaimStore on `adcp_webhook_dedup` (insert, never
//   check-then-insert; takeover of a lapsed lease or an expired done row by the conditional
//   update, as `judgeClaim` rules), optionally inserting `done`.
// - `moved` advances the operation only when `taken` returned a row, with the forward-only rule
//   of PgOperationStore in its WHERE clause (and the agent and task type checked again there, in
//   case the operation was created between the statement's snapshot and its write).
// Either all of it commits or none: a crash leaves the key unclaimed and the operation unmoved,
// or the key claimed (its lease lapses, the retry takes it over) and the operation moved.
const HEAD = `WITH cur AS (
  SELECT agent, task_type FROM adcp_operations WHERE operation_id = $8::text
), taken AS (
  INSERT INTO adcp_webhook_dedup AS d (scope, key, state, token, lease_expires_at, expires_at, fingerprint)
  SELECT $1::text, $2::bytea, CASE WHEN $7::bigint IS NULL THEN 'processing' ELSE 'done' END, $3::text, $4::bigint, $7::bigint, $6::text
  WHERE NOT EXISTS (SELECT 1 FROM cur WHERE agent <> $9::text OR task_type <> $10::text)
  ON CONFLICT (scope, key) DO UPDATE SET
    state = excluded.state, token = excluded.token, lease_expires_at = excluded.lease_expires_at, expires_at = excluded.expires_at,
    fingerprint = CASE WHEN d.state = 'done' THEN excluded.fingerprint ELSE coalesce(d.fingerprint, excluded.fingerprint) END
  WHERE (d.state = 'done' AND d.expires_at <= $5::bigint)
     OR (d.state = 'processing' AND d.lease_expires_at <= $5::bigint
         AND (d.fingerprint IS NULL OR excluded.fingerprint IS NULL OR d.fingerprint = excluded.fingerprint))
  RETURNING token
), moved AS (`;

const FORWARD = (
  o: string,
) => `${o}status_rank < ${FINAL_RANK} AND ${o}status_at <= $13::bigint AND ${o}status_rank <= $12::integer
    AND ($9::text IS NULL OR ${o}agent = $9::text) AND ($10::text IS NULL OR ${o}task_type = $10::text)`;

const TAIL = `  RETURNING ${OPERATION_COLUMNS}
)
SELECT taken.token, cur.agent AS cur_agent, cur.task_type AS cur_task_type,
  dd.state AS dedup_state, dd.lease_expires_at AS dedup_lease, dd.expires_at AS dedup_expires, dd.fingerprint AS dedup_fingerprint,
  moved.*
FROM (VALUES (1)) AS one
  LEFT JOIN taken ON true LEFT JOIN cur ON true LEFT JOIN moved ON true
  LEFT JOIN adcp_webhook_dedup dd ON dd.scope = $1::text AND dd.key = $2::bytea`;

const CREATE_OR_ADVANCE = `${HEAD}
  INSERT INTO adcp_operations AS o
    (operation_id, agent, task_type, task_id, status, status_rank, result, status_at, created_at, updated_at)
  SELECT $8::text, $16::text, $17::text, $14::text, $11::text, $12::integer, $15::text, $13::bigint, $5::bigint, $5::bigint
  WHERE EXISTS (SELECT 1 FROM taken)
  ON CONFLICT (operation_id) DO UPDATE SET
    status = excluded.status, status_rank = excluded.status_rank, status_at = excluded.status_at,
    updated_at = excluded.updated_at, task_id = COALESCE(excluded.task_id, o.task_id),
    result = COALESCE(excluded.result, o.result)
  WHERE ${FORWARD('o.')}
${TAIL}`;

const ADVANCE_ONLY = `${HEAD}
  UPDATE adcp_operations SET
    status = $11::text, status_rank = $12::integer, status_at = $13::bigint, updated_at = $5::bigint,
    task_id = COALESCE($14::text, task_id), result = COALESCE($15::text, result)
  WHERE operation_id = $8::text AND EXISTS (SELECT 1 FROM taken) AND ${FORWARD('')}
${TAIL}`;

interface Row extends Partial<PgOperationRow> {
  token: string | null;
  cur_agent: string | null;
  cur_task_type: string | null;
  dedup_state: string | null;
  dedup_lease: string | null;
  dedup_expires: string | null;
  dedup_fingerprint: string | null;
}

/**
 * `DedupStore.claimAndAdvance` for a dedup and an operation store on one `PgDatabase`: the claim
 * and the conditional create-or-advance in one statement (see the SQL above), so the receiver
 * pays one round trip and one commit instead of three before its handler runs.
 */
export async function pgClaimAndAdvance(
  db: PgDatabase,
  request: ClaimAndAdvanceRequest,
  keyBytes: Buffer,
): Promise<ClaimAndAdvanceOutcome> {
  const { now, update } = request;
  const fingerprint = request.fingerprint ?? null;
  const create = update.createIfMissing;
  const values: unknown[] = [
    request.scope,
    keyBytes,
    '', // token, per attempt
    now + request.leaseMs,
    now,
    fingerprint,
    request.complete === undefined ? null : now + request.complete.ttlMs,
    request.operationId,
    request.expect.agent ?? null,
    request.expect.taskType ?? null,
    update.status,
    statusRank(update.status),
    update.statusAt,
    update.taskId ?? null,
    toJson(update.result),
    ...(create === undefined ? [] : [create.agent, create.taskType]),
  ];
  // Bounded, as in PgDedupStore.claim: the row can vanish or lapse between snapshot and write.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const token = randomUUID();
    values[2] = token;
    const { rows } = await db.query<Row>(
      'dedup claim and operation advance',
      create === undefined ? ADVANCE_ONLY : CREATE_OR_ADVANCE,
      values,
    );
    const row = rows[0] as Row;
    if (row.token !== null) return claimed(db, request, keyBytes, token, row);
    const verdict = judgeClaim(
      row.dedup_state === null
        ? undefined
        : {
            done: row.dedup_state === 'done',
            token: '',
            fingerprint: row.dedup_fingerprint ?? undefined,
            leaseExpiresAt: toMs(row.dedup_lease),
            expiresAt: row.dedup_expires === null ? 0 : toMs(row.dedup_expires),
            result: undefined,
          },
      { now, fingerprint: request.fingerprint, keptMs: 0 },
      DEDUP_POLICY,
    );
    if (verdict.kind === 'done' || verdict.kind === 'expired') return { kind: 'done' };
    if (verdict.kind !== 'take') return verdict;
    const field = mismatchOf(request, row.cur_agent, row.cur_task_type);
    if (field !== undefined) return { kind: 'mismatch', field };
  }
  return { kind: 'busy', leaseExpiresAt: now + request.leaseMs };
}

async function claimed(
  db: PgDatabase,
  request: ClaimAndAdvanceRequest,
  keyBytes: Buffer,
  token: string,
  row: Row,
): Promise<ClaimAndAdvanceOutcome> {
  if (row.operation_id !== undefined && row.operation_id !== null) {
    return { kind: 'claimed', token, applied: true, record: toOperationRecord(row as PgOperationRow) };
  }
  // Not moved (an older or lower event, a final operation): read what is there, as advance does.
  const { rows } = await db.query<PgOperationRow>(
    'operation get',
    `SELECT ${OPERATION_COLUMNS} FROM adcp_operations WHERE operation_id = $1`,
    [request.operationId],
  );
  const current = rows[0];
  const field = current === undefined ? undefined : mismatchOf(request, current.agent, current.task_type);
  if (field !== undefined) {
    // Created by another agent or task between the snapshot and the write: give the key back.
    await db.query('dedup release', 'DELETE FROM adcp_webhook_dedup WHERE scope = $1 AND key = $2 AND token = $3', [
      request.scope,
      keyBytes,
      token,
    ]);
    return { kind: 'mismatch', field };
  }
  return {
    kind: 'claimed',
    token,
    applied: false,
    record: current === undefined ? undefined : toOperationRecord(current),
  };
}

function mismatchOf(
  request: ClaimAndAdvanceRequest,
  agent: string | null,
  taskType: string | null,
): 'agent' | 'task_type' | undefined {
  if (agent === null) return undefined;
  if (request.expect.agent !== undefined && agent !== request.expect.agent) return 'agent';
  if (request.expect.taskType !== undefined && taskType !== request.expect.taskType) return 'task_type';
  return undefined;
}
