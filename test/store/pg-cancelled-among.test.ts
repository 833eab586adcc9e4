// PgTaskStore.cancelledAmong: which of the given task ids are now cancelled (how an instance of a
// fleet learns that work it runs was cancelled through another: server/tasks/cancel-watch.ts). The ids
// are the instance's own running work, so the answer is not scoped to an owner; it must be exact
// for any id text (the ids travel as one text[] parameter) and any number of ids.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import type { TaskKind } from '../../src/store/task-store.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from '../pg/pg-test-env.js';

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe('PgTaskStore.cancelledAmong', { skip: pgSkip }, () => {
  let store: PgTaskStore;

  before(() => {
    store = new PgTaskStore({
      url: pgUrl as string,
      schema: testSchema('cancelled'),
      sweepIntervalMs: 0,
      policy: { rateLimit: { max: 10_000, windowMs: 60_000 } },
    });
  });
  after(async () => {
    await store?.close();
    await dropTestSchemas();
  });

  const create = async (taskId: string, owner = 'principal:a', kind: TaskKind = 'mcp') => {
    const created = await store.create({ owner, kind, taskId });
    assert.equal(created.ok, true);
  };

  it('asks nothing for no ids', async () => {
    assert.deepEqual(await store.cancelledAmong([]), []);
  });

  it('finds the cancelled tasks among 600 ids (past the watch batch of 500), of every owner, and no unknown id', async () => {
    // 600 ids asked at once; tasks exist at some positions (of three owners), the rest are unknown.
    const ids = Array.from({ length: 600 }, (_, i) => `many-${i}`);
    const cancelledAt = [0, 1, 250, 499, 500, 501, 599];
    const workingAt = [2, 502, 598];
    for (const i of [...cancelledAt, ...workingAt]) {
      await create(ids[i] as string, `principal:${i % 3}`, i % 2 === 0 ? 'mcp' : 'a2a');
    }
    for (const i of cancelledAt) assert.equal((await store.cancel(`principal:${i % 3}`, ids[i] as string)).ok, true);
    const cancelled = cancelledAt.map((i) => ids[i] as string);
    assert.deepEqual(sorted(await store.cancelledAmong(ids)), sorted(cancelled));
    // Only the ids asked about; each once even when asked twice.
    assert.deepEqual(await store.cancelledAmong([ids[500] as string, ids[500] as string, ids[502] as string]), [
      ids[500],
    ]);
    assert.deepEqual(await store.cancelledAmong(ids.slice(3, 250)), []);
  });

  it('reports cancelled (mcp) and canceled (a2a, adcp), never another status', async () => {
    const byStatus: Record<string, string> = {};
    for (const status of ['working', 'submitted', 'input-required', 'completed', 'failed', 'rejected']) {
      const id = `status-${status}`;
      await create(id, 'principal:s', 'a2a');
      if (status !== 'working') {
        assert.equal((await store.update('principal:s', id, { status })).ok, true, status);
      }
      byStatus[status] = id;
    }
    await create('status-mcp-cancelled', 'principal:s', 'mcp');
    await store.cancel('principal:s', 'status-mcp-cancelled');
    await create('status-a2a-canceled', 'principal:s', 'a2a');
    await store.cancel('principal:s', 'status-a2a-canceled');
    await create('status-adcp-canceled', 'principal:s', 'adcp');
    await store.cancel('principal:s', 'status-adcp-canceled');
    const cancelled = ['status-mcp-cancelled', 'status-a2a-canceled', 'status-adcp-canceled'];
    assert.deepEqual(sorted(await store.cancelledAmong([...Object.values(byStatus), ...cancelled])), sorted(cancelled));
    // A finished task is not cancelled afterwards: the store refuses, and it is not reported.
    assert.equal((await store.cancel('principal:s', byStatus.completed as string)).ok, false);
    assert.deepEqual(await store.cancelledAmong([byStatus.completed as string]), []);
  });

  it('matches hostile ids exactly: SQL, array-literal and pattern characters are plain text', async () => {
    const hostile = [
      "x'); DROP TABLE adcp_server_tasks; --",
      'a,b',
      '{a}',
      '"quoted"',
      'back\\slash',
      'NULL',
      '%',
      '_',
      ' spaced ',
      'ünïcødé-✓',
      'x'.repeat(2_000),
    ];
    // Decoys the hostile ids would match if they were split, unquoted or read as patterns.
    const decoys = ['a', 'b', 'quoted', 'backslash', 'null', 'spaced', 'percent-match'];
    for (const id of [...hostile, ...decoys]) {
      await create(id, 'principal:h');
      await store.cancel('principal:h', id);
    }
    assert.deepEqual(sorted(await store.cancelledAmong(hostile)), sorted(hostile));
    assert.deepEqual(await store.cancelledAmong(['%']), ['%']);
    assert.deepEqual(await store.cancelledAmong(['a,b', 'c']), ['a,b']);
  });
});
