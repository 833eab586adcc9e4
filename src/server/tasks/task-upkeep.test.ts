import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryTaskStore } from '../../store/memory-task-store.js';
import type { TaskStore } from '../../store/task-store.js';
import { startTaskUpkeep } from './task-upkeep.js';

// A lease of 200 ms: the upkeep runs every 50 ms.
const LEASE_MS = 200;

/** A store whose renewals are counted, and whose calls past the first round can be held. */
function heldStore() {
  const store = new MemoryTaskStore({ policy: { leaseMs: LEASE_MS } });
  const counts = { renewals: 0, abandons: 0 };
  const hold = { abandon: false, renew: false };
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const wrapped: TaskStore = Object.assign(Object.create(store) as TaskStore, {
    leaseMs: store.leaseMs,
    async renewLeases(now?: number) {
      counts.renewals += 1;
      if (hold.renew) await released;
      return store.renewLeases(now);
    },
    async abandonUnfinished(...args: Parameters<TaskStore['abandonUnfinished']>) {
      counts.abandons += 1;
      if (hold.abandon) await released;
      return store.abandonUnfinished(...args);
    },
  });
  return { store: wrapped, counts, hold, release };
}

/** Waits (bounded: 10 s) until `done()`; false if it never was. */
async function until(done: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe('task upkeep', () => {
  it('keeps renewing leases while an abandon query is stuck (a live instance under load keeps its tasks)', async () => {
    const { store, counts, hold, release } = heldStore();
    const upkeep = startTaskUpkeep({ store });
    await upkeep.ready;
    hold.abandon = true;
    assert.ok(await until(() => counts.abandons > 3), 'the next round reached an abandon query');
    const stuckAt = counts.renewals;
    const renewed = await until(() => counts.renewals >= stuckAt + 4);
    release();
    await upkeep.stop();
    assert.ok(renewed, `renewals went on behind the stuck abandon query (${counts.renewals - stuckAt} more)`);
  });

  it('does not pile renewals up behind a slow one, nor abandon rounds behind a slow round', async () => {
    const { store, counts, hold, release } = heldStore();
    const upkeep = startTaskUpkeep({ store });
    await upkeep.ready;
    hold.renew = true;
    hold.abandon = true;
    const renewalsAt = counts.renewals;
    const abandonsAt = counts.abandons;
    // Ten intervals or more pass with both held.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
    assert.ok(counts.renewals <= renewalsAt + 1, `one renewal in flight at a time (${counts.renewals - renewalsAt})`);
    assert.ok(
      counts.abandons <= abandonsAt + 1,
      `one abandon round in flight at a time (${counts.abandons - abandonsAt})`,
    );
    // Released and stopped at once: only what was in flight finishes (the held round's three
    // abandon queries), no backlog of queued rounds.
    release();
    await upkeep.stop();
    assert.ok(counts.renewals <= renewalsAt + 1, `no queued renewals ran (${counts.renewals - renewalsAt})`);
    assert.ok(counts.abandons <= abandonsAt + 3, `no queued rounds ran (${counts.abandons - abandonsAt})`);
  });

  it('stops once what is in flight has finished', async () => {
    const { store, counts, hold, release } = heldStore();
    const upkeep = startTaskUpkeep({ store });
    await upkeep.ready;
    hold.abandon = true;
    assert.ok(await until(() => counts.abandons > 3), 'an abandon query is held');
    hold.renew = true;
    const renewalsAt = counts.renewals;
    assert.ok(await until(() => counts.renewals > renewalsAt), 'a renewal is held');
    let stopped = false;
    const stopping = upkeep.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(stopped, false, 'stop waits for the held calls');
    release();
    await stopping;
    const after = { ...counts };
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    assert.deepEqual(counts, after, 'nothing runs after stop');
  });
});
