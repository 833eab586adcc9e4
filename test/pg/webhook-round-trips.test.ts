// The webhook receiver on PostgreSQL stores sharing one PgDatabase: how many statements a
// delivery costs (claimAndAdvance: one with no handler, two with one), and that the guarantees
// hold on that path: a failed handler runs again on the next delivery, a duplicate does not.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { signWebhookHmac } from '../../src/webhooks/hmac.js';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgDedupStore } from '../../src/store/pg-dedup-store.js';
import { PgOperationStore } from '../../src/store/pg-operation-store.js';
import type { WebhookEvent } from '../../src/webhooks/handler-types.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';

const SECRET = 'round-trips-secret-0123456789abcdef0123456789';
const AGENT = 'https://seller.example';
const EVENT_AT = new Date(Date.now() - 60_000).toISOString();

async function openCounted() {
  const db = await new PgDatabase({ url: pgUrl as string, schema: testSchema('rt') }).connect();
  const statements: string[] = [];
  const query = db.query.bind(db);
  db.query = (what: string, sql: string, values?: unknown[]) => {
    statements.push(what);
    return query(what, sql, values);
  };
  return {
    db,
    statements,
    dedup: new PgDedupStore({ database: db }),
    operations: new PgOperationStore({ database: db }),
  };
}

function delivery(status: string, key = `whk_${randomUUID()}`, operationId = 'op-1'): Request {
  const body = JSON.stringify({
    idempotency_key: key,
    operation_id: operationId,
    task_id: 'task-1',
    task_type: 'create_media_buy',
    status,
    timestamp: EVENT_AT,
    result: { step: status },
  });
  const { headers } = signWebhookHmac({ secret: SECRET, rawBody: body });
  return new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('createWebhookHandler on PostgreSQL (claimAndAdvance)', { skip: pgSkip }, () => {
  after(dropTestSchemas);

  it('costs one statement per delivery with no handler, and answers a duplicate from the done key', async () => {
    const { db, statements, dedup, operations } = await openCounted();
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup,
      operations,
      agent: AGENT,
      sweepIntervalMs: 0,
    });
    const key = `whk_${randomUUID()}`;
    assert.equal((await handler.fetch(delivery('working', key))).status, 200);
    assert.deepEqual(statements, ['dedup claim and operation advance']);
    assert.equal((await operations.get('op-1'))?.status, 'working');
    statements.length = 0;
    assert.equal((await handler.fetch(delivery('working', key))).status, 200);
    assert.deepEqual(statements, ['dedup claim and operation advance'], 'a duplicate is one statement too');
    assert.deepEqual(
      await dedup.claim(await firstScope(db), key, { leaseMs: 1 }),
      { kind: 'done' },
      'completed in the same statement',
    );
    await db.close();
  });

  it('costs two statements with a handler, and runs a failed handler again on the next delivery', async () => {
    const { db, statements, dedup, operations } = await openCounted();
    const runs: WebhookEvent[] = [];
    let fail = true;
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup,
      operations,
      agent: AGENT,
      sweepIntervalMs: 0,
      onEvent: async (event) => {
        runs.push(event);
        if (fail) throw new Error('handler down');
      },
    });
    const key = `whk_${randomUUID()}`;
    assert.equal((await handler.fetch(delivery('completed', key))).status, 500);
    fail = false;
    statements.length = 0;
    assert.equal((await handler.fetch(delivery('completed', key))).status, 200);
    // Not applied (the first delivery moved the operation already): the record is read as advance does.
    assert.deepEqual(statements, ['dedup claim and operation advance', 'operation get', 'dedup complete']);
    assert.equal(runs.length, 2);
    assert.equal(runs[1]?.stale, false, 'the redelivery of the event that set the state is not stale');
    assert.equal(runs[1]?.operation?.status, 'completed');
    statements.length = 0;
    assert.equal((await handler.fetch(delivery('completed', key))).status, 200);
    assert.equal(runs.length, 2, 'a completed key does not run the handler again');
    statements.length = 0;
    assert.equal((await handler.fetch(delivery('working', undefined, 'op-2'))).status, 200);
    assert.equal(runs[2]?.operation?.status, 'working');
    assert.deepEqual(statements, ['dedup claim and operation advance', 'dedup complete']);
    await db.close();
  });

  it('refuses an operation of another agent with 409 in one statement that claims nothing', async () => {
    const { db, statements, dedup, operations } = await openCounted();
    await operations.create({
      operationId: 'op-1',
      agent: 'https://other.example',
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: 0,
    });
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup,
      operations,
      agent: AGENT,
      sweepIntervalMs: 0,
    });
    statements.length = 0;
    const answer = await handler.fetch(delivery('working'));
    assert.equal(answer.status, 409);
    assert.deepEqual(statements, ['dedup claim and operation advance']);
    assert.equal((await operations.get('op-1'))?.status, 'submitted');
    assert.equal(
      (await db.query<{ n: number }>('count', 'SELECT count(*)::int AS n FROM adcp_webhook_dedup')).rows[0]?.n,
      0,
    );
    await db.close();
  });
});

async function firstScope(db: PgDatabase): Promise<string> {
  const { rows } = await db.query<{ scope: string }>('scope', 'SELECT scope FROM adcp_webhook_dedup LIMIT 1');
  return rows[0]?.scope ?? '';
}
