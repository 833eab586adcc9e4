// The behaviour every OperationStore must have, as a reusable suite. Call it from a *.test.ts file:
//   operationStoreContract('SqliteOperationStore', () => new SqliteOperationStore({ path: ':memory:' }));
// Every test uses its own random operation ids and agent, so a shared database needs no cleanup.
// `list` returns records in creation order (createdAt, then operationId).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { OperationStore } from '../../src/store/types.js';

export interface OperationContractOptions {
  makeSibling?: () => OperationStore | Promise<OperationStore>;
  /** Parallel advances in the race test (default 20). */
  parallel?: number;
}

const T0 = 1_800_000_000_000;

/** Registers the OperationStore contract tests for one implementation. */
export function operationStoreContract(
  name: string,
  makeStore: () => OperationStore | Promise<OperationStore>,
  options: OperationContractOptions = {},
): void {
  describe(`${name} (OperationStore contract)`, () => {
    let store: OperationStore;
    let agent: string;
    before(async () => {
      store = await makeStore();
    });
    after(async () => {
      await store.close();
    });
    const id = (): string => {
      agent = `https://agent.test/${randomUUID()}`;
      return `op-${randomUUID()}`;
    };
    const base = (operationId: string, extra: Record<string, unknown> = {}) => ({
      operationId,
      agent,
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: T0,
      now: T0,
      ...extra,
    });

    it('creates a record and reads it back', async () => {
      const op = id();
      const created = await store.create(base(op, { taskId: 't-1', result: { media_buy_id: 'mb', n: [1, 2] } }));
      assert.deepEqual(created, {
        operationId: op,
        agent,
        taskType: 'create_media_buy',
        taskId: 't-1',
        status: 'submitted',
        result: { media_buy_id: 'mb', n: [1, 2] },
        statusAt: T0,
        createdAt: T0,
        updatedAt: T0,
      });
      assert.deepEqual(await store.get(op), created);
    });

    it('leaves absent optional fields absent', async () => {
      const op = id();
      const created = await store.create(base(op));
      assert.equal('taskId' in created, false);
      assert.equal('result' in created, false);
    });

    it('returns undefined for an unknown operation', async () => {
      assert.equal(await store.get(`op-${randomUUID()}`), undefined);
    });

    it('keeps the first record when create is called twice', async () => {
      const op = id();
      await store.create(base(op, { status: 'working' }));
      const again = await store.create(base(op, { status: 'submitted', agent: 'other', now: T0 + 5 }));
      assert.equal(again.status, 'working');
      assert.equal(again.agent, agent);
    });

    it('advances an interim status to a final one with its result and task id', async () => {
      const op = id();
      await store.create(base(op));
      const out = await store.advance(op, {
        status: 'completed',
        statusAt: T0 + 10,
        taskId: 't-9',
        result: { ok: true },
        now: T0 + 11,
      });
      assert.equal(out.applied, true);
      assert.equal(out.record?.status, 'completed');
      assert.equal(out.record?.taskId, 't-9');
      assert.deepEqual(out.record?.result, { ok: true });
      assert.equal(out.record?.statusAt, T0 + 10);
      assert.equal(out.record?.updatedAt, T0 + 11);
      assert.equal(out.record?.createdAt, T0);
      assert.deepEqual(await store.get(op), out.record);
    });

    it('keeps the previous task id and result when an update omits them', async () => {
      const op = id();
      await store.create(base(op, { taskId: 't-1', result: { step: 1 } }));
      const out = await store.advance(op, { status: 'working', statusAt: T0 + 1, now: T0 + 1 });
      assert.equal(out.record?.taskId, 't-1');
      assert.deepEqual(out.record?.result, { step: 1 });
    });

    it('never leaves a final status', async () => {
      const op = id();
      await store.create(base(op));
      await store.advance(op, { status: 'completed', statusAt: T0 + 10, result: { a: 1 } });
      const out = await store.advance(op, { status: 'failed', statusAt: T0 + 20, result: { b: 2 } });
      assert.equal(out.applied, false);
      assert.equal(out.record?.status, 'completed');
      assert.deepEqual(out.record?.result, { a: 1 });
    });

    it('refuses an event older than the current status (stale webhook)', async () => {
      const op = id();
      await store.create(base(op));
      await store.advance(op, { status: 'working', statusAt: T0 + 100 });
      const out = await store.advance(op, { status: 'input-required', statusAt: T0 + 50 });
      assert.equal(out.applied, false);
      assert.equal(out.record?.status, 'working');
      assert.equal(out.record?.statusAt, T0 + 100);
    });

    it('refuses a move backwards in rank even with a newer timestamp', async () => {
      const op = id();
      await store.create(base(op, { status: 'working' }));
      const out = await store.advance(op, { status: 'submitted', statusAt: T0 + 100 });
      assert.equal(out.applied, false);
      assert.equal(out.record?.status, 'working');
    });

    it('refuses an unknown status over a known one', async () => {
      const op = id();
      await store.create(base(op));
      const out = await store.advance(op, { status: 'mystery', statusAt: T0 + 100 });
      assert.equal(out.applied, false);
      assert.equal(out.record?.status, 'submitted');
    });

    it('moves between interim statuses of equal rank when the event is newer', async () => {
      const op = id();
      await store.create(base(op, { status: 'input-required' }));
      const out = await store.advance(op, { status: 'working', statusAt: T0 + 1 });
      assert.equal(out.applied, true);
      assert.equal(out.record?.status, 'working');
    });

    it('does not create a missing operation unless asked', async () => {
      const op = `op-${randomUUID()}`;
      const out = await store.advance(op, { status: 'completed', statusAt: T0 });
      assert.deepEqual(out, { applied: false, record: undefined });
      assert.equal(await store.get(op), undefined);
    });

    it('creates a missing operation from the update with createIfMissing', async () => {
      const op = id();
      const out = await store.advance(op, {
        status: 'completed',
        statusAt: T0 + 3,
        taskId: 't',
        result: { x: 'y' },
        now: T0 + 4,
        createIfMissing: { agent, taskType: 'sync_creatives' },
      });
      assert.equal(out.applied, true);
      assert.deepEqual(out.record, {
        operationId: op,
        agent,
        taskType: 'sync_creatives',
        taskId: 't',
        status: 'completed',
        result: { x: 'y' },
        statusAt: T0 + 3,
        createdAt: T0 + 4,
        updatedAt: T0 + 4,
      });
    });

    it('applies createIfMissing as a normal advance when the record exists', async () => {
      const op = id();
      await store.create(base(op, { status: 'completed' }));
      const out = await store.advance(op, {
        status: 'working',
        statusAt: T0 + 9,
        createIfMissing: { agent, taskType: 'x' },
      });
      assert.equal(out.applied, false);
      assert.equal(out.record?.status, 'completed');
    });

    it('applies exactly one of several parallel final updates', async () => {
      const op = id();
      await store.create(base(op));
      const n = options.parallel ?? 20;
      const outs = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          store.advance(op, { status: i % 2 === 0 ? 'completed' : 'failed', statusAt: T0 + 10, result: { i } }),
        ),
      );
      assert.equal(outs.filter((o) => o.applied).length, 1);
      const winner = outs.find((o) => o.applied);
      assert.deepEqual(await store.get(op), winner?.record);
    });

    it('does not share mutable objects with the caller', async () => {
      const op = id();
      const result = { nested: { v: 1 } };
      await store.create(base(op, { result }));
      result.nested.v = 2;
      const read = await store.get(op);
      (read!.result as { nested: { v: number } }).nested.v = 3;
      assert.deepEqual((await store.get(op))?.result, { nested: { v: 1 } });
    });

    it('lists by agent in creation order, with filters and a limit', async () => {
      const a = id();
      const b = `op-${randomUUID()}`;
      const c = `op-${randomUUID()}`;
      await store.create(base(a, { now: T0 + 1 }));
      await store.create(base(b, { now: T0 + 2, taskType: 'sync_creatives', status: 'working' }));
      await store.create(base(c, { now: T0 + 3, status: 'completed' }));
      assert.deepEqual(
        (await store.list({ agent })).map((r) => r.operationId),
        [a, b, c],
      );
      assert.deepEqual(
        (await store.list({ agent, taskType: 'sync_creatives' })).map((r) => r.operationId),
        [b],
      );
      assert.deepEqual(
        (await store.list({ agent, statuses: ['submitted', 'completed'] })).map((r) => r.operationId),
        [a, c],
      );
      assert.deepEqual(
        (await store.list({ agent, limit: 2 })).map((r) => r.operationId),
        [a, b],
      );
      assert.deepEqual(await store.list({ agent, statuses: [] }), []);
    });

    if (options.makeSibling !== undefined) {
      const makeSibling = options.makeSibling;
      it('sees updates made through a second instance on the same storage', async () => {
        const sibling = await makeSibling();
        try {
          const op = id();
          await store.create(base(op));
          await sibling.advance(op, { status: 'completed', statusAt: T0 + 1, result: { from: 'sibling' } });
          assert.deepEqual((await store.get(op))?.result, { from: 'sibling' });
          assert.equal((await store.advance(op, { status: 'working', statusAt: T0 + 2 })).applied, false);
        } finally {
          await sibling.close();
        }
      });
    }
  });
}
