// test-timeout-ms: 300000
// Three webhook receiver processes sharing one PostgreSQL database behind a round-robin
// forwarder: 10,000 signed deliveries of 2,000 events (500 operations x 4 events) with
// duplicates, concurrent repeats and retries; one receiver SIGKILLed mid-run and restarted.
// Every event's handler ran exactly once (its run and its dedup key commit in one transaction),
// no event is lost, and every operation ends in its final state with the final result.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PgDatabase } from '../../src/store/pg-database.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';
import { startForwarder, type Forwarder } from './fleet/forwarder.js';
import { spawnReceiver, type ReceiverProcess } from './fleet/spawn-receiver.js';
import { deliverAll, makeEvents, percentile } from './fleet/deliveries.js';

const OPERATIONS = 500;
const COPIES = 5;
const KILL_AT = 3_000;

// ~25 s on an idle 2-core machine; the timeout only guards a machine shared with heavy load.
describe('a fleet of three webhook receivers on one PostgreSQL database', { skip: pgSkip, timeout: 300_000 }, () => {
  const schema = pgUrl === undefined ? '' : testSchema('fleet');
  let db: PgDatabase;
  const receivers: ReceiverProcess[] = [];
  let forwarder: Forwarder | undefined;
  const env = (name: string) => ({
    FLEET_STORE_URL: pgUrl as string,
    FLEET_SCHEMA: schema,
    FLEET_RECEIVER: name,
    FLEET_HANDLER: 'txn',
    FLEET_LEASE_MS: '2000',
  });

  before(async () => {
    db = await new PgDatabase({ url: pgUrl as string, schema }).connect();
    await db.query(
      'setup',
      `CREATE TABLE fleet_runs (
      key text NOT NULL, operation_id text, status text, receiver text NOT NULL, pid integer NOT NULL,
      at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    );
    receivers.push(...(await Promise.all(['r0', 'r1', 'r2'].map((name) => spawnReceiver(env(name))))));
    forwarder = await startForwarder(receivers.map((r) => r.port));
  });
  after(async () => {
    await forwarder?.close();
    await Promise.all(receivers.map((r) => r.stop()));
    await db?.close();
    await dropTestSchemas();
  });

  it('runs every handler exactly once, loses nothing, and ends every operation right despite a SIGKILL', async (t) => {
    const events = makeEvents(OPERATIONS);
    let killedPid: number | undefined;
    let restart: Promise<void> | undefined;
    let deliveredAtKill = 0;
    const started = performance.now();
    const stats = await deliverAll(events, {
      url: `${(forwarder as Forwarder).url}/webhooks`,
      concurrency: 24,
      copies: COPIES,
      onDelivered: (count) => {
        if (count !== KILL_AT) return;
        deliveredAtKill = count;
        const victim = receivers[1] as ReceiverProcess;
        killedPid = victim.child.pid;
        restart = victim.kill().then(async () => {
          // The forwarder keeps sending to the dead port (502s) until the new process is up.
          const fresh = await spawnReceiver(env('r1-restarted'));
          receivers[1] = fresh;
          forwarder?.setUpstream(1, fresh.port);
        });
      },
    });
    await restart;
    const seconds = (performance.now() - started) / 1000;

    assert.equal(stats.deliveries, events.length * COPIES);
    assert.ok(killedPid !== undefined && deliveredAtKill === KILL_AT, 'a receiver was killed mid-run');

    const runs = await db.query<{ key: string; n: number; killed: number }>(
      'check',
      'SELECT key, count(*)::int AS n, count(*) FILTER (WHERE pid = $1)::int AS killed FROM fleet_runs GROUP BY key',
      [killedPid],
    );
    const byKey = new Map(runs.rows.map((r) => [r.key, r]));
    const missing = events.filter((e) => !byKey.has(e.key));
    assert.deepEqual(
      missing.map((e) => e.key),
      [],
      'no event lost',
    );
    const twice = runs.rows.filter((r) => r.n !== 1);
    assert.deepEqual(twice, [], 'every handler ran exactly once');

    const keys = await db.query<{ state: string; n: number }>(
      'check',
      'SELECT state, count(*)::int AS n FROM adcp_webhook_dedup GROUP BY state',
    );
    assert.deepEqual(keys.rows, [{ state: 'done', n: events.length }]);

    const ops = await db.query<{ operation_id: string; status: string; status_at: string; result: string }>(
      'check',
      'SELECT operation_id, status, status_at, result FROM adcp_operations',
    );
    assert.equal(ops.rows.length, OPERATIONS);
    const finals = new Map(
      events.filter((e) => e.status === 'completed' || e.status === 'failed').map((e) => [e.operationId, e]),
    );
    for (const row of ops.rows) {
      const final = finals.get(row.operation_id);
      assert.ok(final !== undefined, `unexpected operation ${row.operation_id}`);
      assert.equal(row.status, final.status, row.operation_id);
      assert.equal(Number(row.status_at), final.statusAt, row.operation_id);
      assert.deepEqual(
        JSON.parse(row.result),
        (JSON.parse(final.body) as { result: unknown }).result,
        row.operation_id,
      );
    }

    const byReceiver = await db.query<{ receiver: string; n: number }>(
      'check',
      'SELECT receiver, count(*)::int AS n FROM fleet_runs GROUP BY receiver ORDER BY receiver',
    );
    t.diagnostic(
      `${stats.deliveries} deliveries (${stats.attempts} attempts: ${JSON.stringify(stats.statuses)}) in ${seconds.toFixed(1)} s, ` +
        `p99 ${percentile(stats.latenciesMs, 99).toFixed(0)} ms; handler runs by receiver ${JSON.stringify(byReceiver.rows)}; ` +
        `forwarder ${JSON.stringify(forwarder?.stats())}`,
    );
    assert.ok((byReceiver.rows.find((r) => r.receiver === 'r1')?.n ?? 0) > 0, 'the killed receiver had handled events');
    assert.ok(
      (byReceiver.rows.find((r) => r.receiver === 'r1-restarted')?.n ?? 0) > 0,
      'the restarted receiver handled events',
    );
  });
});
