// test-timeout-ms: 300000
import { describe, it, after } from 'node:test';
import pg from 'pg';
import assert from 'node:assert/strict';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgDedupStore } from '../../src/store/pg-dedup-store.js';
import { PgOperationStore } from '../../src/store/pg-operation-store.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import { PG_MIGRATIONS } from '../../src/store/pg-migrations.js';
import { PgReplayStore } from '../../src/store/pg-replay-store.js';
import type { ReplayStore } from '../../src/signing/replay-store.js';
import { isAdcpWireError } from '../../src/core/wire-error.js';
import { PgIdempotencyStore } from '../../src/store/pg-idempotency-store.js';
import { dedupStoreContract } from './dedup-contract.js';
import { idempotencyStoreContract } from './idempotency-contract.js';
import { operationStoreContract } from './operation-contract.js';
import { taskStoreContract } from './task-store-contract.js';
import { adminQuery, dropTestSchemas, pgSkip, pgUrl, testSchema } from '../pg/pg-test-env.js';

if (pgUrl === undefined) {
  it('PostgreSQL store contracts', { skip: pgSkip }, () => undefined);
} else {
  const url = pgUrl;
  after(dropTestSchemas);

  // Each store gets a fresh schema; its sibling opens a second pool on the same schema.
  let dedupSchema = '';
  dedupStoreContract('PgDedupStore', () => new PgDedupStore({ url, schema: (dedupSchema = testSchema('dedup')) }), {
    makeSibling: () => new PgDedupStore({ url, schema: dedupSchema }),
  });
  let opsSchema = '';
  operationStoreContract(
    'PgOperationStore',
    () => new PgOperationStore({ url, schema: (opsSchema = testSchema('ops')) }),
    {
      makeSibling: () => new PgOperationStore({ url, schema: opsSchema }),
    },
  );
  let idemSchema = '';
  idempotencyStoreContract(
    'postgres',
    () => new PgIdempotencyStore({ url, schema: (idemSchema = testSchema('idem')) }),
    {
      makeSibling: () => new PgIdempotencyStore({ url, schema: idemSchema }),
    },
  );
  let taskSchema = '';
  taskStoreContract(
    'postgres',
    (policy) => new PgTaskStore({ url, schema: (taskSchema = testSchema('tasks')), policy, sweepIntervalMs: 0 }),
    { makeSibling: (policy) => new PgTaskStore({ url, schema: taskSchema, policy, sweepIntervalMs: 0 }) },
  );

  describe('PostgreSQL store plumbing', () => {
    it('records every migration once when five processes start together', async () => {
      const schema = testSchema('mig');
      const databases = Array.from({ length: 5 }, () => new PgDatabase({ url, schema, maxConnections: 1 }));
      await Promise.all(databases.map((db) => db.connect()));
      await Promise.all(databases.map((db) => db.close()));
      const { rows } = await adminQuery(`SELECT version, name FROM ${schema}.adcp_schema_migrations ORDER BY version`);
      assert.deepEqual(
        rows,
        PG_MIGRATIONS.map((m, i) => ({ version: i + 1, name: m.name })),
      );
      assert.equal(rows.length, 9); // the ninth: the media-buy kit's records (6ea8188)
    });

    it('refuses a database migrated by a newer library', async () => {
      const schema = testSchema('newer');
      await adminQuery(`CREATE SCHEMA ${schema};
        CREATE TABLE ${schema}.adcp_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
        INSERT INTO ${schema}.adcp_schema_migrations (version, name) VALUES (99, 'future')`);
      const db = new PgDatabase({ url, schema });
      await assert.rejects(
        db.connect(),
        (error: unknown) => isAdcpWireError(error) && /newer than this library/.test(error.message),
      );
      await db.close();
    });

    it('fails at start with a retryable store error naming the server but not the password', async () => {
      const db = new PgDatabase({ url: 'postgres://adcp:s3cret@127.0.0.1:1/nowhere', connectTimeoutMs: 1000 });
      const error = await db.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      await db.close();
      assert.ok(isAdcpWireError(error));
      assert.equal(error.code, 'store');
      assert.equal(error.retryable, true);
      assert.match(error.message, /127\.0\.0\.1:1\/nowhere/);
      assert.doesNotMatch(error.message, /s3cret/);
    });

    it('refuses a URL that is not postgres:// with a TypeError', () => {
      assert.throws(() => new PgDatabase({ url: 'mysql://x@127.0.0.1/db' }), TypeError);
      assert.throws(() => new PgDatabase({ url, schema: 'Bad-Name' }), TypeError);
    });

    it('fails a statement cut by a terminated backend as retryable, and the next one succeeds', async () => {
      const schema = testSchema('kill');
      const db = await new PgDatabase({ url, schema, maxConnections: 1, applicationName: `kill-${schema}` }).connect();
      const slow = db.query('slow', 'SELECT pg_sleep(10)').then(
        () => undefined,
        (e: unknown) => e,
      );
      for (let i = 0; i < 50; i += 1) {
        const { rows } = await adminQuery(
          "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'SELECT pg_sleep%'",
          [`kill-${schema}`],
        );
        if (rows.length > 0) {
          await adminQuery('SELECT pg_terminate_backend($1)', [rows[0].pid]);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const error = await slow;
      assert.ok(isAdcpWireError(error), String(error));
      assert.equal(error.retryable, true);
      const { rows } = await db.query<{ one: number }>('after', 'SELECT 1 AS one');
      assert.deepEqual(rows, [{ one: 1 }]);
      await db.close();
    });

    it('fails a statement past statement_timeout as retryable', async () => {
      const db = new PgDatabase({ url, schema: testSchema('timeout'), statementTimeoutMs: 100 });
      const error = await db.query('slow', 'SELECT pg_sleep(2)').then(
        () => undefined,
        (e: unknown) => e,
      );
      await db.close();
      assert.ok(isAdcpWireError(error));
      assert.equal(error.retryable, true);
      assert.match(error.message, /57014/);
    });

    it('sweeps a backlog larger than one batch', async () => {
      const store = new PgDedupStore({ url, schema: testSchema('sweep') });
      const now = 1_800_000_000_000;
      for (let i = 0; i < 1_200; i += 1) {
        const claim = await store.claim('s', `k${i}`, { leaseMs: 1000, now });
        if (claim.kind === 'claimed') await store.complete('s', `k${i}`, claim.token, { ttlMs: 10, now });
      }
      const live = await store.claim('s', 'live', { leaseMs: 1000, now });
      assert.equal(await store.sweep(now + 100), 1_200);
      assert.equal(live.kind, 'claimed');
      assert.deepEqual(await store.claim('s', 'live', { leaseMs: 1000, now: now + 100 }), {
        kind: 'busy',
        leaseExpiresAt: now + 1000,
      });
      await store.close();
    });

    it("completes a key inside the caller's transaction, and not at all when it rolls back", async () => {
      const db = new PgDatabase({ url, schema: testSchema('txn') });
      const dedup = new PgDedupStore({ database: db });
      await db.query('setup', 'CREATE TABLE effects (key text)');
      const first = await dedup.claim('s', 'k1', { leaseMs: 60_000 });
      assert.equal(first.kind, 'claimed');
      if (first.kind !== 'claimed') return;
      await assert.rejects(
        db.transaction('handler', async (client) => {
          await client.query('INSERT INTO effects VALUES ($1)', ['k1']);
          assert.equal(
            await dedup.completeIn(client, { scope: 's', key: 'k1', token: first.token, ttlMs: 60_000 }),
            true,
          );
          throw new Error('handler failed after completing');
        }),
      );
      assert.equal((await db.query('check', 'SELECT count(*)::int AS n FROM effects')).rows[0]?.n, 0);
      assert.deepEqual(await dedup.claim('s', 'k1', { leaseMs: 60_000 }), {
        kind: 'busy',
        leaseExpiresAt: await leaseOf(db),
      });
      await db.transaction('handler', async (client) => {
        await client.query('INSERT INTO effects VALUES ($1)', ['k1']);
        assert.equal(
          await dedup.completeIn(client, { scope: 's', key: 'k1', token: first.token, ttlMs: 60_000 }),
          true,
        );
      });
      assert.deepEqual(await dedup.claim('s', 'k1', { leaseMs: 60_000 }), { kind: 'done' });
      assert.equal(
        await db.transaction('stale', (client) =>
          dedup.completeIn(client, { scope: 's', key: 'k1', token: 'other', ttlMs: 1 }),
        ),
        false,
      );
      await db.close();
    });

    it('shares the RFC 9421 replay cache across instances: one record per live (keyid, nonce)', async () => {
      const schema = testSchema('replay');
      const a = new PgReplayStore({ url, schema }) satisfies ReplayStore;
      const b = new PgReplayStore({ url, schema });
      const now = 1_800_000_000;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).record('kid-1', 'n1', now + 300, now)),
      );
      assert.deepEqual(outcomes.filter((o) => o === 'recorded').length, 1);
      assert.deepEqual([...new Set(outcomes)].sort(), ['recorded', 'replayed']);
      assert.equal(await b.record('kid-2', 'n1', now + 300, now), 'recorded', 'nonces are per keyid');
      assert.equal(
        await a.record('kid-1', 'n1', now + 600, now + 300),
        'recorded',
        'an expired nonce may be seen again',
      );
      assert.equal(await b.sweep(now + 10_000), 2);
      await a.close();
      await b.close();
    });

    it('refuses past the per-keyid cap without forgetting live entries, and recovers once they expire', async () => {
      const store = new PgReplayStore({ url, schema: testSchema('replaycap'), perKeyidCap: 3 });
      const now = 1_800_000_000;
      for (const nonce of ['a', 'b', 'c']) assert.equal(await store.record('kid', nonce, now + 300, now), 'recorded');
      assert.equal(await store.isAtCapacity('kid', now), true);
      assert.equal(await store.isAtCapacity('other', now), false);
      assert.equal(await store.record('kid', 'd', now + 300, now), 'rate_abuse');
      assert.equal(await store.record('kid', 'a', now + 300, now + 1), 'replayed', 'live entries are kept');
      assert.equal(await store.record('kid', 'd', now + 600, now + 300), 'recorded');
      await store.close();
    });

    it('sweeps around a row another transaction holds, without waiting for it', async () => {
      const schema = testSchema('skip');
      const store = new PgDedupStore({ url, schema, statementTimeoutMs: 2000 });
      const now = 1_800_000_000_000;
      for (const scope of ['locked', 'free']) {
        const claim = await store.claim(scope, 'k', { leaseMs: 1000, now });
        if (claim.kind === 'claimed') await store.complete(scope, 'k', claim.token, { ttlMs: 10, now });
      }
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM ${schema}.adcp_webhook_dedup WHERE scope = 'locked' FOR UPDATE`);
      assert.equal(await store.sweep(now + 100), 1, 'the free row only, at once');
      await holder.query('COMMIT');
      await holder.end();
      assert.equal(await store.sweep(now + 100), 1, 'the other row once released');
      await store.close();
    });

    it('leaves a shared database open when a store closes', async () => {
      const db = new PgDatabase({ url, schema: testSchema('shared') });
      const dedup = new PgDedupStore({ database: db });
      const ops = new PgOperationStore({ database: db });
      await dedup.close();
      await ops.close();
      assert.deepEqual((await db.query('after', 'SELECT 2 AS two')).rows, [{ two: 2 }]);
      await db.close();
    });
  });
}

async function leaseOf(db: PgDatabase): Promise<number> {
  const { rows } = await db.query<{ lease: string }>(
    'lease',
    'SELECT lease_expires_at AS lease FROM adcp_webhook_dedup',
  );
  return Number(rows[0]?.lease);
}
