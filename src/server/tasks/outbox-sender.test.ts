import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SqliteTaskStore } from '../../store/sqlite-task-store.js';
import type { OwedWebhook, WebhookOutbox } from '../../store/webhook-outbox.js';
import { createServerWebhooks } from './server-webhooks.js';
import { startOutboxSender, type OutboxSender } from './outbox-sender.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback receiver recording each raw body; `answers` are the statuses to give, in turn (then 200). */
async function receiver(answers: number[] = []) {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, bodies, close };
}

describe('webhook outbox on SQLite, and its sender', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-outbox-'));
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  });
  const openStore = (file: string, leaseMs = 10_000) => {
    const store = new SqliteTaskStore({ path: join(dir, file), policy: { leaseMs }, sweepIntervalMs: 0 });
    closers.push(() => store.close());
    return store;
  };
  const sender = (outbox: WebhookOutbox, maxAttempts = 3): OutboxSender => {
    const webhooks = createServerWebhooks({ allowInsecureUrls: true, maxAttempts, timeoutMs: 2_000 });
    const started = startOutboxSender({ outbox, webhooks, pollMs: 50, baseDelayMs: 20, maxDelayMs: 40 });
    closers.push(() => started.close());
    return started;
  };
  const owedFor = (taskId: string, url: string, leaseMs?: number): OwedWebhook => {
    const id = randomUUID();
    return {
      id,
      taskId,
      destination: { url, authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET } },
      envelope: { idempotency_key: id, operation_id: 'op', task_id: taskId, status: 'completed', timestamp: 't' },
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
  };
  const created = async (store: SqliteTaskStore) => {
    const outcome = await store.create({ owner: 'p', kind: 'adcp', status: 'submitted' });
    assert.ok(outcome.ok);
    return outcome.task.taskId;
  };

  it('has no outbox in memory, where the server sends directly', async () => {
    const store = new SqliteTaskStore({ path: ':memory:', sweepIntervalMs: 0 });
    assert.equal(store.outbox, undefined);
    await store.close();
  });

  it('writes the webhook with the status, and none when the update does not take', async () => {
    const store = openStore('write.db');
    const taskId = await created(store);
    const first = owedFor(taskId, 'http://127.0.0.1:9/x', 5_000);
    assert.equal((await store.update('p', taskId, { status: 'completed', webhook: first })).ok, true);
    const refused = await store.update('p', taskId, { status: 'failed', webhook: owedFor(taskId, 'http://x/') });
    assert.equal(refused.ok, false, 'a terminal task is not changed');
    const rows = await store.outbox!.list(taskId);
    assert.deepEqual(
      rows.map((r) => [r.id, r.state, r.attempts]),
      [[first.id, 'pending', 1]],
    );
    // Leased to the writer: no other process takes it before the lease lapses.
    assert.deepEqual(await store.outbox!.claim({ limit: 10, leaseMs: 1_000 }), []);
  });

  it('postpones a claimed row uncounted, only from the handle that holds it', async () => {
    const [one, two] = [openStore('postpone.db'), openStore('postpone.db')];
    const taskId = await created(one);
    const owed = owedFor(taskId, 'http://127.0.0.1:9/x');
    await one.update('p', taskId, { status: 'completed', webhook: owed });
    const [claimed] = await one.outbox!.claim({ limit: 1, leaseMs: 60_000 });
    assert.equal(claimed?.attempts, 1);
    await two.outbox!.postpone(owed.id, Date.now()); // not its lease: no change
    assert.deepEqual(await two.outbox!.claim({ limit: 1, leaseMs: 60_000 }), []);
    await one.outbox!.postpone(owed.id, Date.now() + 60_000);
    assert.equal((await one.outbox!.list(taskId))[0]?.attempts, 0);
    assert.deepEqual(await two.outbox!.claim({ limit: 1, leaseMs: 60_000 }), [], 'due only at the time given');
    const [again] = await two.outbox!.claim({ limit: 1, leaseMs: 60_000, now: Date.now() + 61_000 });
    assert.equal(again?.attempts, 1);
  });

  it('sends, from another process, a webhook whose writer died before sending it: once', async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const dead = openStore('crash.db');
    const taskId = await created(dead);
    const owed = owedFor(taskId, hook.url, 300);
    assert.equal((await dead.update('p', taskId, { status: 'completed', webhook: owed })).ok, true);
    // The writer never sends it (it "died"); a second process on the same file has a sender.
    const live = openStore('crash.db');
    sender(live.outbox!);
    await sleep(150);
    assert.equal(hook.bodies.length, 0, 'not before the lease lapsed');
    for (let i = 0; i < 100 && (await live.outbox!.list(taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    await sleep(300);
    assert.equal(hook.bodies.length, 1);
    assert.deepEqual(JSON.parse(hook.bodies[0]!), owed.envelope);
    assert.equal((await live.outbox!.list(taskId))[0]?.state, 'delivered');
  });

  it('retries a 503 with the same body and key, and gives up on a final 400', async () => {
    const hook = await receiver([503, 503]);
    closers.push(hook.close);
    const store = openStore('retry.db');
    const out = sender(store.outbox!);
    const taskId = await created(store);
    const owed = owedFor(taskId, hook.url, 5_000);
    await store.update('p', taskId, { status: 'completed', webhook: owed });
    out.send({ ...owed, attempts: 1 });
    for (let i = 0; i < 100 && (await store.outbox!.list(taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    const [row] = await store.outbox!.list(taskId);
    assert.equal(row?.state, 'delivered');
    assert.equal(row?.attempts, 3);
    assert.equal(hook.bodies.length, 3);
    assert.equal(new Set(hook.bodies).size, 1, 'every attempt sends the same body');

    const refusing = await receiver([400]);
    closers.push(refusing.close);
    const other = await created(store);
    const doomed = owedFor(other, refusing.url, 5_000);
    await store.update('p', other, { status: 'completed', webhook: doomed });
    out.send({ ...doomed, attempts: 1 });
    for (let i = 0; i < 100 && (await store.outbox!.list(other))[0]?.state === 'pending'; i += 1) await sleep(50);
    const [failed] = await store.outbox!.list(other);
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.attempts, 1);
    assert.match(failed?.lastError ?? '', /rejected 400/);
  });

  it('gives up after maxAttempts on a receiver that keeps failing', async () => {
    const hook = await receiver([500, 500, 500, 500]);
    closers.push(hook.close);
    const store = openStore('exhaust.db');
    const out = sender(store.outbox!, 2);
    const taskId = await created(store);
    const owed = owedFor(taskId, hook.url, 5_000);
    await store.update('p', taskId, { status: 'completed', webhook: owed });
    out.send({ ...owed, attempts: 1 });
    for (let i = 0; i < 100 && (await store.outbox!.list(taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    assert.equal((await store.outbox!.list(taskId))[0]?.state, 'failed');
    assert.equal(hook.bodies.length, 2);
  });

  it('writes the webhooks of abandoned tasks with their failure, due for any sender', async () => {
    const hook = await receiver();
    closers.push(hook.close);
    const dead = openStore('abandon.db', 100);
    const taskId = await created(dead);
    const withoutHook = await created(dead);
    const live = openStore('abandon.db', 100);
    await sleep(150); // the dead process's leases lapse
    const failed = await live.abandonUnfinished('adcp', {
      statusMessage: 'gone',
      webhookFor: (task) => (task.taskId === taskId ? owedFor(task.taskId, hook.url) : undefined),
    });
    assert.equal(failed, 2);
    assert.equal((await live.outbox!.list(withoutHook)).length, 0);
    sender(live.outbox!);
    for (let i = 0; i < 100 && (await live.outbox!.list(taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    assert.equal((await live.outbox!.list(taskId))[0]?.state, 'delivered');
    assert.equal(hook.bodies.length, 1);
  });
});
