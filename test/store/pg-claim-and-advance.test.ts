import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgDedupStore } from '../../src/store/pg-dedup-store.js';
import { PgOperationStore } from '../../src/store/pg-operation-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import type { ClaimAndAdvanceRequest } from '../../src/store/types.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from '../pg/pg-test-env.js';

const T0 = 1_800_000_000_000;
const AGENT = 'https://seller.example';

async function open(schema = testSchema('cna')) {
  const db = new PgDatabase({ url: pgUrl as string, schema });
  const dedup = new PgDedupStore({ database: db });
  const operations = new PgOperationStore({ database: db });
  return { db, dedup, operations, schema };
}

type Stores = Awaited<ReturnType<typeof open>>;

function request(
  stores: Stores,
  overrides: Partial<ClaimAndAdvanceRequest> & { status?: string; statusAt?: number } = {},
): ClaimAndAdvanceRequest {
  const { status = 'working', statusAt = T0, ...rest } = overrides;
  return {
    scope: 's',
    key: 'k1',
    leaseMs: 30_000,
    now: T0,
    fingerprint: 'f1',
    operations: stores.operations,
    operationId: 'op1',
    update: {
      status,
      statusAt,
      taskId: 't1',
      result: { step: status },
      createIfMissing: { agent: AGENT, taskType: 'create_media_buy' },
    },
    expect: { agent: AGENT, taskType: 'create_media_buy' },
    ...rest,
  };
}

describe('PgDedupStore.claimAndAdvance', { skip: pgSkip }, () => {
  after(dropTestSchemas);

  it('claims a new key and creates the operation in one step; the key is then busy', async () => {
    const stores = await open();
    const outcome = await stores.dedup.claimAndAdvance(request(stores));
    assert.equal(outcome?.kind, 'claimed');
    if (outcome?.kind !== 'claimed') return;
    assert.equal(outcome.applied, true);
    assert.deepEqual(outcome.record, {
      operationId: 'op1',
      agent: AGENT,
      taskType: 'create_media_buy',
      taskId: 't1',
      status: 'working',
      result: { step: 'working' },
      statusAt: T0,
      createdAt: T0,
      updatedAt: T0,
    });
    assert.deepEqual(await stores.operations.get('op1'), outcome.record);
    assert.deepEqual(await stores.dedup.claim('s', 'k1', { leaseMs: 1, now: T0 + 1, fingerprint: 'f1' }), {
      kind: 'busy',
      leaseExpiresAt: T0 + 30_000,
    });
    assert.equal(await stores.dedup.complete('s', 'k1', outcome.token, { ttlMs: 1000, now: T0 }), true);
    await stores.db.close();
  });

  it('completes the key in the same step when asked', async () => {
    const stores = await open();
    const outcome = await stores.dedup.claimAndAdvance(request(stores, { complete: { ttlMs: 5000 } }));
    assert.equal(outcome?.kind, 'claimed');
    assert.deepEqual(await stores.dedup.claim('s', 'k1', { leaseMs: 1, now: T0 + 4999, fingerprint: 'f1' }), {
      kind: 'done',
    });
    assert.equal(
      (await stores.dedup.claim('s', 'k1', { leaseMs: 1, now: T0 + 5000, fingerprint: 'f1' })).kind,
      'claimed',
    );
    await stores.db.close();
  });

  it('answers done, busy and conflict like claim, and then leaves the operation alone', async () => {
    const stores = await open();
    await stores.dedup.claimAndAdvance(request(stores, { key: 'done', complete: { ttlMs: 60_000 } }));
    await stores.dedup.claimAndAdvance(request(stores, { key: 'busy', statusAt: T0 + 1 }));
    const later = { status: 'completed', statusAt: T0 + 100, now: T0 + 100 };
    assert.deepEqual(await stores.dedup.claimAndAdvance(request(stores, { key: 'done', ...later })), { kind: 'done' });
    assert.deepEqual(await stores.dedup.claimAndAdvance(request(stores, { key: 'busy', ...later })), {
      kind: 'busy',
      leaseExpiresAt: T0 + 30_000,
    });
    assert.deepEqual(
      await stores.dedup.claimAndAdvance(request(stores, { key: 'busy', fingerprint: 'other', ...later })),
      { kind: 'conflict' },
    );
    const record = await stores.operations.get('op1');
    assert.equal(record?.status, 'working');
    assert.equal(record?.statusAt, T0 + 1);
    await stores.db.close();
  });

  it('never moves an operation backwards, and a redelivery after a released claim claims again', async () => {
    const stores = await open();
    const first = await stores.dedup.claimAndAdvance(
      request(stores, { key: 'final', status: 'completed', statusAt: T0 + 50 }),
    );
    assert.equal(first?.kind === 'claimed' && first.applied, true);
    const older = await stores.dedup.claimAndAdvance(
      request(stores, { key: 'older', status: 'working', statusAt: T0 + 10 }),
    );
    assert.equal(older?.kind, 'claimed');
    if (older?.kind !== 'claimed' || first?.kind !== 'claimed') return;
    assert.equal(older.applied, false);
    assert.equal(older.record?.status, 'completed', 'the record as it stands');
    await stores.dedup.release('s', 'final', first.token);
    const again = await stores.dedup.claimAndAdvance(
      request(stores, { key: 'final', status: 'completed', statusAt: T0 + 50, now: T0 + 60 }),
    );
    assert.equal(again?.kind, 'claimed', 'a handler that failed runs again on the next delivery');
    if (again?.kind !== 'claimed') return;
    assert.equal(again.applied, false);
    assert.equal(again.record?.status, 'completed');
    assert.equal(again.record?.statusAt, T0 + 50);
    await stores.db.close();
  });

  it('takes over a lapsed lease (the holder crashed) and keeps the operation where it is', async () => {
    const stores = await open();
    const first = await stores.dedup.claimAndAdvance(request(stores, { leaseMs: 1000 }));
    assert.equal(first?.kind, 'claimed');
    assert.deepEqual(await stores.dedup.claimAndAdvance(request(stores, { now: T0 + 999 })), {
      kind: 'busy',
      leaseExpiresAt: T0 + 1000,
    });
    const retry = await stores.dedup.claimAndAdvance(request(stores, { now: T0 + 1000 }));
    assert.equal(retry?.kind, 'claimed');
    if (retry?.kind !== 'claimed' || first?.kind !== 'claimed') return;
    assert.notEqual(retry.token, first.token);
    assert.equal(
      await stores.dedup.complete('s', 'k1', first.token, { ttlMs: 1000, now: T0 + 1001 }),
      false,
      'the crashed holder lost the key',
    );
    assert.equal(retry.record?.status, 'working');
    await stores.db.close();
  });

  it('claims nothing and moves nothing for an operation of another agent or task type', async () => {
    const stores = await open();
    await stores.operations.create({
      operationId: 'op1',
      agent: 'https://other.example',
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: T0,
      now: T0,
    });
    await stores.operations.create({
      operationId: 'op2',
      agent: AGENT,
      taskType: 'sync_creatives',
      status: 'submitted',
      statusAt: T0,
      now: T0,
    });
    assert.deepEqual(await stores.dedup.claimAndAdvance(request(stores, { key: 'a' })), {
      kind: 'mismatch',
      field: 'agent',
    });
    assert.deepEqual(await stores.dedup.claimAndAdvance(request(stores, { key: 'b', operationId: 'op2' })), {
      kind: 'mismatch',
      field: 'task_type',
    });
    assert.equal((await stores.operations.get('op1'))?.status, 'submitted');
    assert.equal((await stores.operations.get('op2'))?.status, 'submitted');
    assert.equal(
      (await stores.dedup.claim('s', 'a', { leaseMs: 1, now: T0, fingerprint: 'f1' })).kind,
      'claimed',
      'the key was not taken',
    );
    await stores.db.close();
  });

  it('without createIfMissing advances an existing operation and creates none', async () => {
    const stores = await open();
    await stores.operations.create({
      operationId: 'op1',
      agent: AGENT,
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: T0,
      now: T0,
    });
    const base = request(stores);
    const { createIfMissing: _, ...update } = base.update;
    const moved = await stores.dedup.claimAndAdvance({ ...base, update: { ...update, statusAt: T0 + 1 } });
    assert.equal(moved?.kind === 'claimed' && moved.applied && moved.record?.status, 'working');
    const missing = await stores.dedup.claimAndAdvance({ ...base, key: 'k2', operationId: 'nope', update });
    assert.deepEqual(missing?.kind === 'claimed' && [missing.applied, missing.record], [false, undefined]);
    assert.equal(await stores.operations.get('nope'), undefined);
    await stores.db.close();
  });

  it('is all or nothing: when the operation write fails, the key is not claimed', async () => {
    const stores = await open();
    await stores.db.connect();
    await stores.db.query('setup', "ALTER TABLE adcp_operations ADD CONSTRAINT no_boom CHECK (status <> 'boom')");
    await assert.rejects(stores.dedup.claimAndAdvance(request(stores, { status: 'boom' })));
    assert.equal((await stores.dedup.claim('s', 'k1', { leaseMs: 1, now: T0, fingerprint: 'f1' })).kind, 'claimed');
    assert.equal(await stores.operations.get('op1'), undefined);
    await stores.db.close();
  });

  it('gives exactly one claim and one advance to 40 concurrent deliveries of a key from two processes', async () => {
    const a = await open();
    const b = await open(a.schema);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const stores = i % 2 === 0 ? a : b;
        return stores.dedup.claimAndAdvance(request(stores, { now: T0 + i }));
      }),
    );
    const kinds = outcomes.map((o) => o?.kind);
    assert.equal(kinds.filter((k) => k === 'claimed').length, 1);
    assert.equal(kinds.filter((k) => k === 'busy').length, 39);
    assert.equal(outcomes.filter((o) => o?.kind === 'claimed' && o.applied).length, 1);
    await a.db.close();
    await b.db.close();
  });

  it('answers undefined for an operation store on another database, so the caller makes two calls', async () => {
    const stores = await open();
    const other = new PgOperationStore({ url: pgUrl as string, schema: stores.schema });
    assert.equal(await stores.dedup.claimAndAdvance({ ...request(stores), operations: other }), undefined);
    assert.equal(
      await stores.dedup.claimAndAdvance({ ...request(stores), operations: new MemoryOperationStore() }),
      undefined,
    );
    assert.equal((await stores.dedup.claim('s', 'k1', { leaseMs: 1, now: T0 })).kind, 'claimed', 'nothing was claimed');
    await other.close();
    await stores.db.close();
  });
});
