import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createServerWebhooks } from '../../src/server/tasks/server-webhooks.js';
import { startOutboxSender, type OutboxSenderOptions } from '../../src/server/tasks/outbox-sender.js';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.js';
import type { OwedWebhook } from '../../src/store/webhook-outbox.js';

// Issue 36 item 5: one buyer whose receiver accepts and never answers must not stall the webhook
// outbox. Before: an attempt's `AbortSignal.timeout` inside `AbortSignal.any` could be collected
// before it fired, so the attempt (and its socket) stayed open for ever; its lease lapsed, the
// row was claimed again (`attempts` counted, no POST), and the sender's slots filled, so another
// buyer's webhook waited behind them. Garbage collection is forced while the probes wait, as a
// busy seller's heap would run it.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

/** A receiver on `host` that reads each request and never answers (`answer` false), or answers 200. */
async function receiver(host: string, answer: boolean) {
  let posts = 0;
  let open = 0;
  let maxOpen = 0;
  let ended = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    posts += 1;
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => {
      open -= 1;
      ended += 1;
    });
    req.resume();
    if (answer) req.on('end', () => res.writeHead(200).end());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hook`,
    get posts() {
      return posts;
    },
    get maxOpen() {
      return maxOpen;
    },
    get ended() {
      return ended;
    },
    get sockets() {
      return sockets.size;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook outbox sender, against a receiver that never answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-outbox-stuck-'));
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  });
  const collector = setInterval(gc, 20);
  closers.push(async () => clearInterval(collector));

  const openStore = (file: string) => {
    const store = new SqliteTaskStore({ path: join(dir, file), sweepIntervalMs: 0 });
    closers.push(() => store.close());
    return store;
  };
  const startSender = (store: SqliteTaskStore, timeoutMs: number, extra: Partial<OutboxSenderOptions> = {}) => {
    const webhooks = createServerWebhooks({ allowInsecureUrls: true, maxAttempts: 3, timeoutMs });
    const sender = startOutboxSender({
      outbox: store.outbox!,
      webhooks,
      pollMs: 50,
      baseDelayMs: 20,
      maxDelayMs: 40,
      ...extra,
    });
    closers.push(() => sender.close());
    return sender;
  };
  /** A task completed with a webhook owed to `url` (leased to the writer when `leaseMs` is given). */
  const owe = async (store: SqliteTaskStore, url: string, leaseMs?: number): Promise<OwedWebhook> => {
    const created = await store.create({ owner: 'p', kind: 'adcp', status: 'submitted' });
    assert.ok(created.ok);
    const taskId = created.task.taskId;
    const id = randomUUID();
    const owed: OwedWebhook = {
      id,
      taskId,
      destination: { url, authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET } },
      envelope: { idempotency_key: id, operation_id: 'op', task_id: taskId, status: 'completed', timestamp: 't' },
      ...(leaseMs === undefined ? {} : { leaseMs }),
    };
    assert.equal((await store.update('p', taskId, { status: 'completed', webhook: owed })).ok, true);
    return owed;
  };

  it('ends every attempt at its deadline and settles the delivery failed after maxAttempts POSTs', async () => {
    const hole = await receiver('127.0.0.1', false);
    closers.push(hole.close);
    const store = openStore('deadline.db');
    const sender = startSender(store, 1_000);
    const owed = await owe(store, hole.url, sender.leaseMs);
    sender.send({ ...owed, attempts: 1 });
    for (let i = 0; i < 300 && (await store.outbox!.list(owed.taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    const [row] = await store.outbox!.list(owed.taskId);
    assert.equal(row?.state, 'failed', `still ${row?.state} after 15 s, ${row?.attempts} attempts counted`);
    assert.equal(row?.attempts, 3);
    // One POST per attempt; on a loaded machine an attempt may be cut off before its request arrives.
    assert.ok(hole.posts >= 1 && hole.posts <= 3, `${hole.posts} POSTs for 3 attempts`);
    for (let i = 0; i < 40 && hole.sockets > 0; i += 1) await sleep(50);
    assert.equal(hole.sockets, 0, 'no socket left open to the receiver');
  });

  it("sends another buyer's webhook while one buyer's receiver holds its requests open", async () => {
    const hole = await receiver('127.0.0.1', false);
    const good = await receiver('127.0.0.2', true);
    closers.push(hole.close, good.close);
    const store = openStore('fair.db');
    for (let i = 0; i < 30; i += 1) await owe(store, hole.url);
    const owed = await owe(store, good.url); // due after the 30 owed to the black hole
    startSender(store, 10_000, { maxInFlight: 16 });
    for (let i = 0; i < 150 && good.posts === 0; i += 1) await sleep(50);
    assert.equal(good.posts, 1, 'the other buyer got its webhook');
    assert.equal(hole.ended, 0, 'without waiting for an attempt to the black hole to end');
    assert.ok(hole.maxOpen <= 8, `${hole.maxOpen} requests held open at once by one host (8 at most)`);
    for (let i = 0; i < 40 && (await store.outbox!.list(owed.taskId))[0]?.state === 'pending'; i += 1) await sleep(50);
    assert.equal((await store.outbox!.list(owed.taskId))[0]?.state, 'delivered');
  });
});
