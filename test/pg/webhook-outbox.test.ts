// The webhook outbox on a real PostgreSQL: the owed webhook is written in the statement that
// changes the status; instances claiming at once never take one row; a webhook whose writer
// died before sending it is sent by another instance once its lease lapses; a task abandoned by a
// dead instance gets its `failed` webhook from a live one; a server on the shared store sends its
// tasks' webhooks through the outbox.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';
import { createServerWebhooks } from '../../src/server/tasks/server-webhooks.js';
import { startOutboxSender } from '../../src/server/tasks/outbox-sender.js';
import { ABANDONED_MESSAGE } from '../../src/server/tasks/task-upkeep.js';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgIdempotencyStore } from '../../src/store/pg-idempotency-store.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import type { OwedWebhook } from '../../src/store/webhook-outbox.js';
import { adminQuery, dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';

type Json = Record<string, unknown>;
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(done: () => Promise<boolean> | boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('webhook outbox on PostgreSQL', { skip: pgSkip }, () => {
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await dropTestSchemas();
  });
  const bodies: Json[] = [];
  let hookUrl = '';
  const receiverReady = (async () => {
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(body) as Json);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    closers.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
  })();
  const received = (taskId: string) => bodies.filter((b) => b.task_id === taskId);
  const destination = () => ({
    url: hookUrl,
    operation_id: `op-${randomUUID()}`,
    authentication: { schemes: ['HMAC-SHA256' as const], credentials: SECRET },
  });
  const open = (schema: string, leaseMs = 10_000) => {
    const database = new PgDatabase({ url: pgUrl as string, schema });
    const store = new PgTaskStore({ database, sweepIntervalMs: 0, policy: { leaseMs } });
    closers.push(() => database.close());
    return { database, store };
  };
  const owedFor = (taskId: string, leaseMs?: number): OwedWebhook => {
    const id = randomUUID();
    return {
      id,
      taskId,
      destination: destination(),
      envelope: { idempotency_key: id, operation_id: 'op', task_id: taskId, status: 'completed', timestamp: 't' },
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
  };
  const created = async (store: PgTaskStore) => {
    const outcome = await store.create({ owner: 'p', kind: 'adcp', status: 'submitted' });
    assert.ok(outcome.ok);
    return outcome.task.taskId;
  };
  const sender = (store: PgTaskStore) => {
    const webhooks = createServerWebhooks({ allowInsecureUrls: true, timeoutMs: 2_000 });
    const started = startOutboxSender({ outbox: store.outbox, webhooks, pollMs: 50 });
    closers.push(() => started.close());
    return started;
  };

  it('writes the webhook in the statement that changes the status, and none when it does not change', async () => {
    const { store } = open(testSchema('obwrite'));
    const taskId = await created(store);
    const first = owedFor(taskId, 5_000);
    assert.equal((await store.update('p', taskId, { status: 'completed', webhook: first })).ok, true);
    const again = await store.update('p', taskId, { status: 'failed', webhook: owedFor(taskId) });
    assert.equal(again.ok, false);
    const rows = await store.outbox.list(taskId);
    assert.deepEqual(
      rows.map((r) => [r.id, r.state, r.attempts]),
      [[first.id, 'pending', 1]],
    );
  });

  it('never hands one row to two instances claiming at once', async () => {
    const schema = testSchema('obclaim');
    const handles = [open(schema), open(schema), open(schema)];
    const first = handles[0]!.store;
    const ids = new Set<string>();
    for (let i = 0; i < 60; i += 1) {
      const taskId = await created(first);
      const owed = owedFor(taskId);
      await first.update('p', taskId, { status: 'completed', webhook: owed });
      await first.outbox.release();
      ids.add(owed.id);
    }
    const taken: string[][] = handles.map(() => []);
    await Promise.all(
      handles.map(async ({ store }, i) => {
        for (let round = 0; round < 30; round += 1) {
          const claimed = await store.outbox.claim({ limit: 4, leaseMs: 60_000 });
          taken[i]!.push(...claimed.map((c) => c.id));
        }
      }),
    );
    const all = taken.flat();
    assert.equal(all.length, 60, 'every row taken');
    assert.equal(new Set(all).size, 60, 'none taken twice');
    assert.deepEqual(new Set(all), ids);
  });

  it('postpones a claimed row uncounted, only from the instance that holds it (issue 36 item 5)', async () => {
    const schema = testSchema('obpostpone');
    const [one, two] = [open(schema).store, open(schema).store];
    const taskId = await created(one);
    const owed = owedFor(taskId);
    await one.update('p', taskId, { status: 'completed', webhook: owed });
    const [claimed] = await one.outbox.claim({ limit: 1, leaseMs: 60_000 });
    assert.equal(claimed?.attempts, 1);
    await two.outbox.postpone(owed.id, Date.now()); // not its lease: no change
    assert.deepEqual(await two.outbox.claim({ limit: 1, leaseMs: 60_000 }), []);
    await one.outbox.postpone(owed.id, Date.now() + 60_000);
    assert.equal((await one.outbox.list(taskId))[0]?.attempts, 0);
    assert.deepEqual(await two.outbox.claim({ limit: 1, leaseMs: 60_000 }), [], 'due only at the time given');
    await one.outbox.postpone(owed.id, Date.now()); // no longer held: no change
    assert.deepEqual(await two.outbox.claim({ limit: 1, leaseMs: 60_000, now: Date.now() + 61_000 }), [
      { ...claimed, attempts: 1 },
    ]);
  });

  it('sends once, from another instance, a webhook whose writer died before sending it', async () => {
    await receiverReady;
    const schema = testSchema('obcrash');
    const dead = open(schema).store;
    const taskId = await created(dead);
    const owed = owedFor(taskId, 400);
    await dead.update('p', taskId, { status: 'completed', webhook: owed });
    // The writer never sends it; two live instances poll the outbox.
    sender(open(schema).store);
    sender(open(schema).store);
    await sleep(200);
    assert.equal(received(taskId).length, 0, 'not while the writer holds its lease');
    await until(async () => (await dead.outbox.list(taskId))[0]?.state === 'delivered', 'the delivery');
    await sleep(500);
    assert.deepEqual(received(taskId), [owed.envelope], 'sent once, the stored envelope unchanged');
  });

  it('sends the failed webhook of a task a dead instance left unfinished, from a live server', async () => {
    await receiverReady;
    const schema = testSchema('obabandon');
    const dead = open(schema, 300).store;
    const push = destination();
    const outcome = await dead.create({
      owner: 'principal:buyer',
      kind: 'adcp',
      taskType: 'create_media_buy',
      status: 'working',
      request: { push, context: { trace: 'abandoned' } },
    });
    assert.ok(outcome.ok);
    const taskId = outcome.task.taskId;
    const { database, store } = open(schema, 300);
    const adcp = createAdcpServer({
      validateRequests: false,
      tools: [],
      store,
      idempotency: { store: new PgIdempotencyStore({ database }) },
      webhooks: { allowInsecureUrls: true },
    });
    closers.push(() => adcp.close());
    await until(() => received(taskId).length > 0, 'the failed webhook');
    await sleep(500);
    const [body] = received(taskId);
    assert.equal(received(taskId).length, 1);
    assert.equal(body?.status, 'failed');
    assert.equal(body?.operation_id, push.operation_id);
    assert.equal(body?.message, ABANDONED_MESSAGE);
    assert.deepEqual(body?.context, { trace: 'abandoned' });
    assert.equal(((body?.result as Json | undefined)?.adcp_error as Json | undefined)?.code, 'SERVICE_UNAVAILABLE');
    const { rows } = await adminQuery(`SELECT state FROM ${schema}.adcp_webhook_outbox WHERE task_id = $1`, [taskId]);
    assert.deepEqual(rows, [{ state: 'delivered' }]);
  });

  it("sends a running task's webhooks through the outbox", async () => {
    await receiverReady;
    const schema = testSchema('observe');
    const { database, store } = open(schema);
    const quick: AdcpToolDefinition = {
      name: 'create_media_buy',
      description: 'Works briefly, then completes.',
      mutating: false,
      handler: (_args, context) =>
        context.submit(async (progress) => {
          await progress.working('halfway', { percentage: 50 });
          return { media_buy_id: 'mb_1' };
        }),
    };
    const adcp = createAdcpServer({
      validateRequests: false,
      tools: [quick],
      store,
      idempotency: { store: new PgIdempotencyStore({ database }) },
      webhooks: { allowInsecureUrls: true },
    });
    const listening = await adcp.listen();
    closers.push(() => listening.close());
    const client = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp' });
    closers.push(() => client.close());
    const push = destination();
    const buy = await client.call('create_media_buy', { push_notification_config: push });
    assert.equal(buy.status, 'submitted');
    const taskId = String(buy.taskId);
    await until(() => received(taskId).some((b) => b.status === 'completed'), 'the completed webhook');
    assert.deepEqual(
      received(taskId).map((b) => b.status),
      ['working', 'completed'],
    );
    const { rows } = await adminQuery(
      `SELECT state, attempts FROM ${schema}.adcp_webhook_outbox WHERE task_id = $1 ORDER BY created_at`,
      [taskId],
    );
    await until(async () => (await store.outbox.list(taskId)).every((r) => r.state === 'delivered'), 'settled');
    assert.equal(rows.length, 2);
  });
});
