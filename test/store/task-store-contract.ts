import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskStore } from '../../src/store/task-store.js';
import type { TaskPolicy } from '../../src/store/task-policy.js';

/** Builds a fresh, empty store with the given policy overrides. */
export type MakeTaskStore = (policy: Partial<TaskPolicy>) => TaskStore | Promise<TaskStore>;

const T0 = 1_700_000_000_000;

/**
 * The behaviour every TaskStore implementation must show. Registers describe/it blocks; call it
 * from a *.test.ts file once per implementation: `taskStoreContract('sqlite', (p) => make(p))`.
 */
export function taskStoreContract(
  name: string,
  makeStore: MakeTaskStore,
  options: {
    /** A second handle on the database of the store made last (another process of a fleet). */
    makeSibling?: MakeTaskStore;
  } = {},
): void {
  describe(`TaskStore contract: ${name}`, () => {
    const opened: TaskStore[] = [];
    const make = async (policy: Partial<TaskPolicy> = {}): Promise<TaskStore> => {
      const store = await makeStore(policy);
      opened.push(store);
      return store;
    };
    after(async () => {
      for (const store of opened) await store.close();
    });

    const created = async (
      store: TaskStore,
      owner: string,
      extra: Partial<Parameters<TaskStore['create']>[0]> = {},
    ) => {
      const outcome = await store.create({ owner, kind: 'mcp', now: T0, ...extra });
      assert.equal(outcome.ok, true);
      if (!outcome.ok) throw new Error('unreachable');
      return outcome.task;
    };

    it('creates a working task with a poll interval, TTL and timestamps', async () => {
      const store = await make({ pollIntervalMs: 750, defaultTtlMs: 60_000 });
      const task = await created(store, 'session-a', { taskType: 'get_products' });
      assert.equal(task.status, 'working');
      assert.equal(task.pollIntervalMs, 750);
      assert.equal(task.ttlMs, 60_000);
      assert.equal(task.createdAt, T0);
      assert.equal(task.expiresAt, T0 + 60_000);
      assert.equal(task.taskType, 'get_products');
      assert.equal(typeof task.taskId, 'string');
    });

    it('clamps a requested TTL above the maximum down to the maximum', async () => {
      const store = await make({ maxTtlMs: 10_000, minTtlMs: 1_000 });
      const task = await created(store, 'o', { requestedTtlMs: 999_999_999 });
      assert.equal(task.ttlMs, 10_000);
    });

    it('raises a requested TTL below the minimum up to the minimum', async () => {
      const store = await make({ maxTtlMs: 10_000, minTtlMs: 1_000 });
      const task = await created(store, 'o', { requestedTtlMs: 1 });
      assert.equal(task.ttlMs, 1_000);
    });

    it('turns an unlimited (null) TTL into the maximum', async () => {
      const store = await make({ maxTtlMs: 10_000 });
      const task = await created(store, 'o', { requestedTtlMs: null });
      assert.equal(task.ttlMs, 10_000);
    });

    it('returns a task to its owner with the request it was created with', async () => {
      const store = await make();
      const task = await created(store, 'owner-1', { request: { push: { url: 'http://127.0.0.1/x' } } });
      const read = await store.get('owner-1', task.taskId, T0 + 1);
      assert.deepEqual(read?.request, { push: { url: 'http://127.0.0.1/x' } });
    });

    it("treats another owner's task as not found on get", async () => {
      const store = await make();
      const task = await created(store, 'owner-1');
      assert.equal(await store.get('owner-2', task.taskId, T0 + 1), undefined);
    });

    it("refuses to cancel another owner's task and leaves it unchanged", async () => {
      const store = await make();
      const task = await created(store, 'owner-1');
      const outcome = await store.cancel('owner-2', task.taskId, T0 + 1);
      assert.deepEqual(outcome, { ok: false, reason: 'not_found' });
      assert.equal((await store.get('owner-1', task.taskId, T0 + 2))?.status, 'working');
    });

    it("refuses to update another owner's task", async () => {
      const store = await make();
      const task = await created(store, 'owner-1');
      const outcome = await store.update('owner-2', task.taskId, { status: 'completed', now: T0 + 1 });
      assert.equal(outcome.ok, false);
      assert.equal((await store.get('owner-1', task.taskId, T0 + 2))?.status, 'working');
    });

    it("leaves another owner's tasks out of list", async () => {
      const store = await make();
      await created(store, 'owner-1');
      const mine = await created(store, 'owner-2');
      const page = await store.list('owner-2', { now: T0 + 1 });
      assert.deepEqual(
        page.tasks.map((t) => t.taskId),
        [mine.taskId],
      );
    });

    it('stores a result with the final status', async () => {
      const store = await make();
      const task = await created(store, 'o');
      const outcome = await store.update('o', task.taskId, {
        status: 'completed',
        result: { content: [], n: 1 },
        now: T0 + 5,
      });
      assert.equal(outcome.ok, true);
      const read = await store.get('o', task.taskId, T0 + 6);
      assert.equal(read?.status, 'completed');
      assert.deepEqual(read?.result, { content: [], n: 1 });
      assert.equal(read?.lastUpdatedAt, T0 + 5);
    });

    it('never changes a terminal task', async () => {
      const store = await make();
      const task = await created(store, 'o');
      await store.update('o', task.taskId, { status: 'completed', result: { a: 1 }, now: T0 + 1 });
      const outcome = await store.update('o', task.taskId, { status: 'failed', result: { b: 2 }, now: T0 + 2 });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.ok === false ? outcome.reason : '', 'terminal');
      const read = await store.get('o', task.taskId, T0 + 3);
      assert.equal(read?.status, 'completed');
      assert.deepEqual(read?.result, { a: 1 });
    });

    it('cancels an MCP task as "cancelled" and an AdCP task as "canceled"', async () => {
      const store = await make();
      const mcp = await created(store, 'o', { kind: 'mcp' });
      const adcp = await created(store, 'o', { kind: 'adcp' });
      const a = await store.cancel('o', mcp.taskId, T0 + 1);
      const b = await store.cancel('o', adcp.taskId, T0 + 1);
      assert.equal(a.ok ? a.task.status : 'refused', 'cancelled');
      assert.equal(b.ok ? b.task.status : 'refused', 'canceled');
    });

    it('refuses to cancel a completed task', async () => {
      const store = await make();
      const task = await created(store, 'o');
      await store.update('o', task.taskId, { status: 'completed', now: T0 + 1 });
      const outcome = await store.cancel('o', task.taskId, T0 + 2);
      assert.equal(outcome.ok === false ? outcome.reason : 'applied', 'terminal');
    });

    it('hides an expired task from get and list', async () => {
      const store = await make({ minTtlMs: 1_000 });
      const task = await created(store, 'o', { requestedTtlMs: 1_000 });
      assert.notEqual(await store.get('o', task.taskId, T0 + 999), undefined);
      assert.equal(await store.get('o', task.taskId, T0 + 1_000), undefined);
      assert.equal((await store.list('o', { now: T0 + 1_000 })).tasks.length, 0);
    });

    it('sweeps expired rows and keeps live ones', async () => {
      const store = await make({ minTtlMs: 1_000 });
      await created(store, 'o', { requestedTtlMs: 1_000 });
      const kept = await created(store, 'o', { requestedTtlMs: 50_000 });
      assert.equal(await store.sweep(T0 + 2_000), 1);
      assert.equal((await store.get('o', kept.taskId, T0 + 2_000))?.taskId, kept.taskId);
    });

    it('rate-limits task creation per owner and reports when to retry', async () => {
      const store = await make({ rateLimit: { max: 2, windowMs: 10_000 } });
      await created(store, 'o');
      await created(store, 'o', { now: T0 + 100 });
      const third = await store.create({ owner: 'o', kind: 'mcp', now: T0 + 200 });
      assert.deepEqual(third, { ok: false, reason: 'rate_limited', retryAfterMs: 9_800 });
    });

    it('does not count one owner against another for the rate limit', async () => {
      const store = await make({ rateLimit: { max: 1, windowMs: 10_000 } });
      await created(store, 'o1');
      const other = await store.create({ owner: 'o2', kind: 'mcp', now: T0 + 1 });
      assert.equal(other.ok, true);
    });

    it('allows creation again once the window has passed', async () => {
      const store = await make({ rateLimit: { max: 1, windowMs: 10_000 } });
      await created(store, 'o');
      const later = await store.create({ owner: 'o', kind: 'mcp', now: T0 + 10_001 });
      assert.equal(later.ok, true);
    });

    it('caps the unexpired tasks one owner holds and reports when the soonest expires', async () => {
      const store = await make({ maxTasksPerOwner: 2, minTtlMs: 1_000 });
      const first = await created(store, 'o', { requestedTtlMs: 5_000 });
      await created(store, 'o', { now: T0 + 100, requestedTtlMs: 50_000 });
      assert.equal((await store.update('o', first.taskId, { status: 'completed', now: T0 + 150 })).ok, true);
      const third = await store.create({ owner: 'o', kind: 'adcp', now: T0 + 200 });
      assert.deepEqual(third, { ok: false, reason: 'too_many_tasks', retryAfterMs: 4_800 });
      assert.equal((await store.create({ owner: 'o2', kind: 'mcp', now: T0 + 200 })).ok, true);
      const afterExpiry = await store.create({ owner: 'o', kind: 'mcp', now: T0 + 5_000 });
      assert.equal(afterExpiry.ok, true, 'an expired task no longer counts, swept or not');
    });

    it('never lets racing creates of one owner pass the task cap', async () => {
      const store = await make({ maxTasksPerOwner: 3 });
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.create({ owner: 'o', kind: 'mcp', now: T0 + i })),
      );
      assert.equal(outcomes.filter((o) => o.ok).length, 3);
      assert.equal((await store.list('o', { now: T0 + 10 })).tasks.length, 3);
    });

    it('pages through list newest first with a cursor', async () => {
      const store = await make({ listLimit: 2 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push((await created(store, 'o', { now: T0 + i })).taskId);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page += 1) {
        const result = await store.list('o', cursor === undefined ? { now: T0 + 10 } : { now: T0 + 10, cursor });
        seen.push(...result.tasks.map((t) => t.taskId));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      assert.deepEqual(seen, [...ids].reverse());
    });

    it('filters list by kind and status', async () => {
      const store = await make();
      await created(store, 'o', { kind: 'mcp' });
      const adcp = await created(store, 'o', { kind: 'adcp', status: 'submitted' });
      await created(store, 'o', { kind: 'adcp', status: 'completed' });
      const page = await store.list('o', { kind: 'adcp', statuses: ['submitted'], now: T0 + 1 });
      assert.deepEqual(
        page.tasks.map((t) => t.taskId),
        [adcp.taskId],
      );
    });

    it('rejects a cursor it did not issue', async () => {
      const store = await make();
      await assert.rejects(store.list('o', { cursor: 'not-a-cursor' }), RangeError);
    });

    it('abandons unfinished tasks of one kind, for every owner, once their lease lapsed', async () => {
      const store = await make({ leaseMs: 1000 });
      const a = await created(store, 'o1', { kind: 'adcp', status: 'submitted' });
      const b = await created(store, 'o2', { kind: 'adcp', status: 'working' });
      const done = await created(store, 'o1', { kind: 'adcp' });
      await store.update('o1', done.taskId, { status: 'completed', now: T0 + 1 });
      const mcp = await created(store, 'o1', { kind: 'mcp' });
      const restarted = { statusMessage: 'restarted', result: { r: 1 } };
      assert.equal(await store.abandonUnfinished('adcp', { ...restarted, now: T0 + 999 }), 0, 'leases still live');
      assert.equal(await store.abandonUnfinished('adcp', { ...restarted, now: T0 + 1000 }), 2);
      assert.equal((await store.get('o1', a.taskId, T0 + 1001))?.status, 'failed');
      assert.equal((await store.get('o1', a.taskId, T0 + 1001))?.statusMessage, 'restarted');
      assert.deepEqual((await store.get('o2', b.taskId, T0 + 1001))?.result, { r: 1 });
      assert.equal((await store.get('o1', done.taskId, T0 + 1001))?.status, 'completed');
      assert.equal((await store.get('o1', mcp.taskId, T0 + 1001))?.status, 'working');
      assert.equal(await store.abandonUnfinished('adcp', { ...restarted, now: T0 + 1002 }), 0, 'once');
    });

    it('never abandons a task whose runner keeps renewing its lease', async () => {
      const store = await make({ leaseMs: 1000 });
      const task = await created(store, 'o', { kind: 'a2a' });
      assert.equal(await store.renewLeases(T0 + 900), 1);
      assert.equal(await store.abandonUnfinished('a2a', { statusMessage: 'x', now: T0 + 1500 }), 0);
      assert.equal(await store.renewLeases(T0 + 1800), 1);
      assert.equal(await store.abandonUnfinished('a2a', { statusMessage: 'x', now: T0 + 2700 }), 0);
      assert.equal(await store.abandonUnfinished('a2a', { statusMessage: 'x', now: T0 + 2800 }), 1);
      assert.equal((await store.get('o', task.taskId, T0 + 2801))?.status, 'failed');
      await store.update('o', task.taskId, { status: 'completed', now: T0 + 2802 });
      assert.equal(await store.renewLeases(T0 + 2803), 0, 'a finished task has no lease to renew');
    });

    if (options.makeSibling !== undefined) {
      const makeSibling = options.makeSibling;
      it('lets another process on the same database fail the tasks of a dead one, never of a live one', async () => {
        const dead = await make({ leaseMs: 1000 });
        const live = await makeSibling({ leaseMs: 1000 });
        opened.push(live);
        const orphan = await created(dead, 'o', { kind: 'adcp', status: 'submitted' });
        const running = await created(live, 'o', { kind: 'adcp', status: 'submitted' });
        // The live process renews only its own tasks.
        assert.equal(await live.renewLeases(T0 + 900), 1);
        assert.equal(await live.abandonUnfinished('adcp', { statusMessage: 'gone', now: T0 + 1000 }), 1);
        assert.equal((await live.get('o', orphan.taskId, T0 + 1001))?.status, 'failed');
        assert.equal((await live.get('o', running.taskId, T0 + 1001))?.status, 'submitted');
        // Nor can the other process fail a task this one keeps renewing.
        assert.equal(await dead.abandonUnfinished('adcp', { statusMessage: 'gone', now: T0 + 1500 }), 0);
      });
    }

    it('keeps a caller-chosen task id and refuses a duplicate', async () => {
      const store = await make();
      const task = await created(store, 'o', { taskId: 'a2a-task-1', kind: 'a2a' });
      assert.equal(task.taskId, 'a2a-task-1');
      await assert.rejects(store.create({ owner: 'o', kind: 'a2a', taskId: 'a2a-task-1', now: T0 }), RangeError);
    });
  });
}
