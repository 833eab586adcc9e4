// test-timeout-ms: 300000
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgDedupStore } from '../../src/store/pg-dedup-store.js';
import { PgOperationStore } from '../../src/store/pg-operation-store.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import { isAdcpWireError } from '../../src/core/wire-error.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { pgSkip } from './pg-test-env.js';
import { startTestCluster, type TestCluster } from './pg-cluster.js';
import { startForwarder } from './fleet/forwarder.js';
import { spawnReceiver, type ReceiverProcess } from './fleet/spawn-receiver.js';
import { deliverAll, makeEvents } from './fleet/deliveries.js';

const UNITS = 600;
const WORKERS = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PostgreSQL stores across a database restart', { skip: pgSkip, timeout: 300_000 }, () => {
  let cluster: TestCluster;
  let db: PgDatabase;
  before(async () => {
    cluster = await startTestCluster();
    db = await new PgDatabase({ url: cluster.url, maxConnections: WORKERS, connectTimeoutMs: 2000 }).connect();
    await db.query('setup', 'CREATE TABLE handler_runs (unit integer NOT NULL)');
  });
  after(async () => {
    await db?.close();
    await cluster?.stop();
  });

  it('fails in-flight work with retryable errors, succeeds afterwards, and leaves nothing half-written', async (t) => {
    const dedup = new PgDedupStore({ database: db });
    const ops = new PgOperationStore({ database: db });
    const tasks: TaskStore = new PgTaskStore({
      database: db,
      sweepIntervalMs: 0,
      policy: { rateLimit: { max: 10_000, windowMs: 60_000 } },
    });
    const errors: unknown[] = [];
    // Per unit: handler attempts that threw (their first statement may have committed).
    const failedHandlers = new Map<number, number>();
    let done = 0;
    let next = 0;

    // One unit = one webhook's work, as a receiver should do it: claim the key; run the handler
    // (a row, the operation's final state, a task); on a handler failure release the key so a
    // retry runs it again; once the handler succeeded, retry `complete` (idempotent, by token)
    // while the lease lasts, so a successful handler is never run twice. Retried like a sender.
    const settle = async (what: () => Promise<unknown>): Promise<void> => {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        try {
          await what();
          return;
        } catch (error) {
          errors.push(error);
          await sleep(50);
        }
      }
      throw new Error('store never came back');
    };
    const handler = async (i: number): Promise<void> => {
      await db.query('handler', 'INSERT INTO handler_runs (unit) VALUES ($1)', [i]);
      await ops.advance(`op-${i}`, {
        status: 'completed',
        statusAt: 1000 + i,
        result: { unit: i, media_buy_id: `mb-${i}` },
        createIfMissing: { agent: 'https://seller.test', taskType: 'create_media_buy' },
      });
      const task = await tasks
        .create({ owner: `buyer-${i % 3}`, kind: 'adcp', taskId: `task-${i}` })
        .catch((error: unknown) => {
          if (error instanceof RangeError) return { ok: true }; // created by an earlier, cut attempt
          throw error;
        });
      assert.equal(task.ok, true);
    };
    const unit = async (i: number): Promise<void> => {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        let claim;
        try {
          claim = await dedup.claim('restart', `evt-${i}`, { leaseMs: 30_000 });
        } catch (error) {
          errors.push(error);
          await sleep(50);
          continue;
        }
        if (claim.kind === 'done') return;
        if (claim.kind !== 'claimed') {
          await sleep(50);
          continue;
        }
        const token = claim.token;
        try {
          await handler(i);
        } catch (error) {
          errors.push(error);
          failedHandlers.set(i, (failedHandlers.get(i) ?? 0) + 1);
          await settle(() => dedup.release('restart', `evt-${i}`, token));
          continue;
        }
        await settle(async () => {
          if (!(await dedup.complete('restart', `evt-${i}`, token, { ttlMs: 600_000 })))
            throw new Error('lost the lease');
        });
        done += 1;
        return;
      }
      throw new Error(`unit ${i} never finished`);
    };
    const worker = async (): Promise<void> => {
      while (next < UNITS) await unit(next++);
    };

    const workers = Array.from({ length: WORKERS }, worker);
    for (let i = 0; i < 400 && done < UNITS / 4; i += 1) await sleep(25);
    // A statement certainly in flight when the server goes down.
    const inFlight = db.query('in flight', 'SELECT pg_sleep(30)').then(
      () => undefined,
      (e: unknown) => e,
    );
    await sleep(100);
    const doneBeforeRestart = done;
    await cluster.restart();
    await Promise.all(workers);

    const cut = await inFlight;
    assert.ok(isAdcpWireError(cut), `in-flight statement: ${String(cut)}`);
    assert.equal(cut.code, 'store');
    assert.equal(cut.retryable, true);
    assert.ok(doneBeforeRestart < UNITS, 'the restart happened mid-run');
    for (const error of errors) {
      assert.ok(isAdcpWireError(error) && error.retryable, `non-retryable failure: ${String(error)}`);
    }

    const ranCounts = await db.query<{ unit: number; n: string }>(
      'check',
      'SELECT unit, count(*) AS n FROM handler_runs GROUP BY unit',
    );
    assert.equal(ranCounts.rows.length, UNITS, 'every unit ran');
    for (const row of ranCounts.rows) {
      // A handler that succeeded ran exactly once; only a handler that failed midway runs again.
      const failed = failedHandlers.get(row.unit) ?? 0;
      assert.ok(
        Number(row.n) >= 1 && Number(row.n) <= 1 + failed,
        `unit ${row.unit} ran ${row.n} times, ${failed} failed`,
      );
    }
    const final = await db.query<{ n: string }>(
      'check',
      "SELECT count(*) AS n FROM adcp_operations WHERE status = 'completed' AND result IS NOT NULL AND status_at >= 1000",
    );
    assert.equal(Number(final.rows[0]?.n), UNITS);
    const keys = await db.query<{ state: string; n: string; expiring: string }>(
      'check',
      'SELECT state, count(*) AS n, count(expires_at) AS expiring FROM adcp_webhook_dedup GROUP BY state',
    );
    assert.deepEqual(
      keys.rows.map((r) => [r.state, Number(r.n), Number(r.expiring)]),
      [['done', UNITS, UNITS]],
    );
    const reruns = ranCounts.rows.reduce((sum, row) => sum + Number(row.n) - 1, 0);
    t.diagnostic(
      `${doneBeforeRestart}/${UNITS} done before the restart; ${errors.length} retryable errors; ${reruns} re-runs, all after a handler failed midway`,
    );
    const owned = await tasks.list('buyer-0', { limit: 1 });
    assert.equal(owned.tasks[0]?.owner, 'buyer-0');
    await tasks.close();
  });
  it('keeps webhook receivers serving across the restart: 5xx while it is down, then every event once', async (t) => {
    const schema = 'fleet_restart';
    const setup = await new PgDatabase({ url: cluster.url, schema }).connect();
    await setup.query(
      'setup',
      'CREATE TABLE fleet_runs (key text NOT NULL, operation_id text, status text, receiver text NOT NULL, pid integer NOT NULL)',
    );
    await setup.close();
    const receivers: ReceiverProcess[] = await Promise.all(
      ['a', 'b'].map((name) =>
        spawnReceiver({
          FLEET_STORE_URL: cluster.url,
          FLEET_SCHEMA: schema,
          FLEET_RECEIVER: name,
          FLEET_HANDLER: 'txn',
          FLEET_LEASE_MS: '2000',
        }),
      ),
    );
    const forwarder = await startForwarder(receivers.map((r) => r.port));
    try {
      const events = makeEvents(250);
      let restarted: Promise<void> | undefined;
      const stats = await deliverAll(events, {
        url: `${forwarder.url}/webhooks`,
        concurrency: 16,
        copies: 2,
        maxAttempts: 150,
        onDelivered: (count) => {
          if (count === 600) restarted = cluster.restart();
        },
      });
      await restarted;
      t.diagnostic(`${stats.deliveries} deliveries, ${stats.attempts} attempts: ${JSON.stringify(stats.statuses)}`);
      assert.equal(stats.deliveries, events.length * 2);
      const refused = Object.keys(stats.statuses).filter((s) => s !== '200');
      assert.ok(refused.length > 0, 'some deliveries were refused while the database was down');
      assert.ok(
        refused.every((s) => /^5\d\d$/.test(s) || s === 'network'),
        `only retryable answers: ${refused.join(', ')}`,
      );
      assert.ok(
        receivers.every((r) => r.child.exitCode === null && r.child.signalCode === null),
        'no receiver died',
      );

      const db = await new PgDatabase({ url: cluster.url, schema }).connect();
      const runs = await db.query<{ key: string; n: number }>(
        'check',
        'SELECT key, count(*)::int AS n FROM fleet_runs GROUP BY key',
      );
      assert.equal(runs.rows.length, events.length, 'no event lost');
      assert.deepEqual(
        runs.rows.filter((r) => r.n !== 1),
        [],
        'every handler ran exactly once',
      );
      const ops = await db.query<{ status: string; n: number }>(
        'check',
        'SELECT status, count(*)::int AS n FROM adcp_operations GROUP BY status ORDER BY status',
      );
      assert.deepEqual(ops.rows, [
        { status: 'completed', n: 125 },
        { status: 'failed', n: 125 },
      ]);
      await db.close();
    } finally {
      await forwarder.close();
      await Promise.all(receivers.map((r) => r.stop()));
    }
  });
});
