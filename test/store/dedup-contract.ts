// The behaviour every DedupStore must have, as a reusable suite. Call it from a *.test.ts file:
//   dedupStoreContract('SqliteDedupStore', () => new SqliteDedupStore({ path: ':memory:' }));
// Each test uses its own random scope, so a shared database (PostgreSQL) needs no cleanup between
// tests. `makeSibling`, when given, opens a second store on the same storage (another connection
// or process view) to check that claims are exclusive across instances too.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { DedupStore } from '../../src/store/types.js';

export interface DedupContractOptions {
  makeSibling?: () => DedupStore | Promise<DedupStore>;
  /** Parallel claims in the race test (default 50). */
  parallel?: number;
}

const LEASE = { leaseMs: 30_000 };
const T0 = 1_800_000_000_000;

/** Registers the DedupStore contract tests for one implementation. */
export function dedupStoreContract(
  name: string,
  makeStore: () => DedupStore | Promise<DedupStore>,
  options: DedupContractOptions = {},
): void {
  describe(`${name} (DedupStore contract)`, () => {
    let store: DedupStore;
    let scope: string;
    before(async () => {
      store = await makeStore();
    });
    after(async () => {
      await store.close();
    });
    const fresh = (): string => {
      scope = `contract-${randomUUID()}`;
      return scope;
    };

    it('claims a new key', async () => {
      const outcome = await store.claim(fresh(), 'k1', { ...LEASE, now: T0 });
      assert.equal(outcome.kind, 'claimed');
      assert.equal(typeof (outcome as { token: string }).token, 'string');
    });

    it('answers busy with the lease expiry while a live lease holds the key', async () => {
      const s = fresh();
      await store.claim(s, 'k', { leaseMs: 1000, now: T0 });
      assert.deepEqual(await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 999 }), {
        kind: 'busy',
        leaseExpiresAt: T0 + 1000,
      });
    });

    it('answers done after complete, until the TTL passes', async () => {
      const s = fresh();
      const claimed = await store.claim(s, 'k', { ...LEASE, now: T0 });
      assert.equal(claimed.kind, 'claimed');
      const ok = await store.complete(s, 'k', (claimed as { token: string }).token, { ttlMs: 60_000, now: T0 + 10 });
      assert.equal(ok, true);
      assert.deepEqual(await store.claim(s, 'k', { ...LEASE, now: T0 + 60_009 }), { kind: 'done' });
      assert.equal((await store.claim(s, 'k', { ...LEASE, now: T0 + 60_010 })).kind, 'claimed');
    });

    it('stays done long after the lease would have expired', async () => {
      const s = fresh();
      const claimed = (await store.claim(s, 'k', { leaseMs: 10, now: T0 })) as { token: string };
      await store.complete(s, 'k', claimed.token, { ttlMs: 86_400_000, now: T0 + 5 });
      assert.deepEqual(await store.claim(s, 'k', { leaseMs: 10, now: T0 + 3_600_000 }), { kind: 'done' });
    });

    it('lets a new delivery reclaim a key whose lease expired without complete (crashed holder)', async () => {
      const s = fresh();
      await store.claim(s, 'k', { leaseMs: 1000, now: T0 });
      const again = await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 1000 });
      assert.equal(again.kind, 'claimed');
    });

    it('refuses complete from a holder whose lease was taken over', async () => {
      const s = fresh();
      const first = (await store.claim(s, 'k', { leaseMs: 1000, now: T0 })) as { token: string };
      const second = (await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 2000 })) as { token: string };
      assert.equal(await store.complete(s, 'k', first.token, { ttlMs: 60_000, now: T0 + 2001 }), false);
      assert.equal(await store.complete(s, 'k', second.token, { ttlMs: 60_000, now: T0 + 2002 }), true);
    });

    it('refuses complete with an unknown token', async () => {
      const s = fresh();
      await store.claim(s, 'k', { ...LEASE, now: T0 });
      assert.equal(await store.complete(s, 'k', 'not-the-token', { ttlMs: 60_000, now: T0 }), false);
      assert.equal(await store.complete(s, 'absent', 'x', { ttlMs: 60_000, now: T0 }), false);
    });

    it('makes the key claimable again after release (handler failed)', async () => {
      const s = fresh();
      const claimed = (await store.claim(s, 'k', { ...LEASE, now: T0 })) as { token: string };
      await store.release(s, 'k', claimed.token);
      assert.equal((await store.claim(s, 'k', { ...LEASE, now: T0 + 1 })).kind, 'claimed');
    });

    it('ignores release with a stale token', async () => {
      const s = fresh();
      await store.claim(s, 'k', { leaseMs: 1000, now: T0 });
      const second = (await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 5000 })) as { token: string };
      await store.release(s, 'k', 'stale-token');
      assert.equal((await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 5001 })).kind, 'busy');
      assert.equal(typeof second.token, 'string');
    });

    it('does not release a completed key', async () => {
      const s = fresh();
      const claimed = (await store.claim(s, 'k', { ...LEASE, now: T0 })) as { token: string };
      await store.complete(s, 'k', claimed.token, { ttlMs: 60_000, now: T0 });
      await store.release(s, 'k', claimed.token);
      assert.deepEqual(await store.claim(s, 'k', { ...LEASE, now: T0 + 1 }), { kind: 'done' });
    });

    it('keeps scopes apart: the same key under two scopes is two keys', async () => {
      const a = fresh();
      const b = `${a}-other`;
      const ca = (await store.claim(a, 'k', { ...LEASE, now: T0 })) as { token: string };
      await store.complete(a, 'k', ca.token, { ttlMs: 60_000, now: T0 });
      assert.equal((await store.claim(b, 'k', { ...LEASE, now: T0 })).kind, 'claimed');
    });

    it('does not confuse scope and key boundaries', async () => {
      const s = fresh();
      await store.claim(`${s}a`, 'b', { ...LEASE, now: T0 });
      assert.equal((await store.claim(s, 'ab', { ...LEASE, now: T0 })).kind, 'claimed');
    });

    it('stores keys with any characters verbatim', async () => {
      const s = fresh();
      const key = "evt_'; DROP TABLE x; --\u0000\u{1F600}";
      const claimed = (await store.claim(s, key, { ...LEASE, now: T0 })) as { token: string };
      assert.equal(await store.complete(s, key, claimed.token, { ttlMs: 60_000, now: T0 }), true);
      assert.deepEqual(await store.claim(s, key, { ...LEASE, now: T0 }), { kind: 'done' });
    });

    it('answers conflict for the same key with a different fingerprint, while processing or done', async () => {
      const s = fresh();
      const claimed = (await store.claim(s, 'k', { ...LEASE, now: T0, fingerprint: 'fp-a' })) as { token: string };
      assert.deepEqual(await store.claim(s, 'k', { ...LEASE, now: T0 + 1, fingerprint: 'fp-b' }), { kind: 'conflict' });
      await store.complete(s, 'k', claimed.token, { ttlMs: 60_000, now: T0 + 2 });
      assert.deepEqual(await store.claim(s, 'k', { ...LEASE, now: T0 + 3, fingerprint: 'fp-b' }), { kind: 'conflict' });
      assert.deepEqual(await store.claim(s, 'k', { ...LEASE, now: T0 + 4, fingerprint: 'fp-a' }), { kind: 'done' });
    });

    it('keeps the first fingerprint when an expired lease is reclaimed', async () => {
      const s = fresh();
      await store.claim(s, 'k', { leaseMs: 10, now: T0, fingerprint: 'fp-a' });
      assert.deepEqual(await store.claim(s, 'k', { leaseMs: 10, now: T0 + 100, fingerprint: 'fp-b' }), {
        kind: 'conflict',
      });
      assert.equal((await store.claim(s, 'k', { leaseMs: 10, now: T0 + 200, fingerprint: 'fp-a' })).kind, 'claimed');
    });

    it('never reports conflict when either claim has no fingerprint', async () => {
      const s = fresh();
      await store.claim(s, 'k', { leaseMs: 1000, now: T0, fingerprint: 'fp-a' });
      assert.equal((await store.claim(s, 'k', { leaseMs: 1000, now: T0 + 1 })).kind, 'busy');
      const t = fresh();
      await store.claim(t, 'k', { leaseMs: 1000, now: T0 });
      assert.equal((await store.claim(t, 'k', { leaseMs: 1000, now: T0 + 1, fingerprint: 'fp-b' })).kind, 'busy');
    });

    it('binds a new fingerprint once the done row passed its TTL', async () => {
      const s = fresh();
      const c = (await store.claim(s, 'k', { ...LEASE, now: T0, fingerprint: 'fp-a' })) as { token: string };
      await store.complete(s, 'k', c.token, { ttlMs: 1000, now: T0 });
      assert.equal((await store.claim(s, 'k', { ...LEASE, now: T0 + 2000, fingerprint: 'fp-b' })).kind, 'claimed');
    });

    it('gives exactly one claimed among parallel claims of one key', async () => {
      const s = fresh();
      const n = options.parallel ?? 50;
      const outcomes = await Promise.all(
        Array.from({ length: n }, () => store.claim(s, 'race', { ...LEASE, now: T0 })),
      );
      assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
      assert.equal(outcomes.filter((o) => o.kind === 'busy').length, n - 1);
    });

    it('gives exactly one claimed among parallel reclaims of an expired lease', async () => {
      const s = fresh();
      await store.claim(s, 'race', { leaseMs: 10, now: T0 });
      const n = options.parallel ?? 50;
      const outcomes = await Promise.all(
        Array.from({ length: n }, () => store.claim(s, 'race', { leaseMs: 10, now: T0 + 100 })),
      );
      assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
    });

    it('sweeps done rows past their TTL and nothing else', async () => {
      const s = fresh();
      const a = (await store.claim(s, 'old', { ...LEASE, now: T0 })) as { token: string };
      await store.complete(s, 'old', a.token, { ttlMs: 1000, now: T0 });
      const b = (await store.claim(s, 'young', { ...LEASE, now: T0 })) as { token: string };
      await store.complete(s, 'young', b.token, { ttlMs: 1_000_000, now: T0 });
      await store.claim(s, 'live', { leaseMs: 1_000_000, now: T0 });
      const removed = await store.sweep(T0 + 5000);
      assert.ok(removed >= 1, `removed ${removed}`);
      assert.equal((await store.claim(s, 'old', { ...LEASE, now: T0 + 5000 })).kind, 'claimed');
      assert.deepEqual(await store.claim(s, 'young', { ...LEASE, now: T0 + 5000 }), { kind: 'done' });
      assert.equal((await store.claim(s, 'live', { ...LEASE, now: T0 + 5000 })).kind, 'busy');
    });

    if (options.makeSibling !== undefined) {
      const makeSibling = options.makeSibling;
      it('shares claims with a second instance on the same storage', async () => {
        const sibling = await makeSibling();
        try {
          const s = fresh();
          const n = options.parallel ?? 50;
          const outcomes = await Promise.all(
            Array.from({ length: n }, (_, i) => (i % 2 === 0 ? store : sibling).claim(s, 'k', { ...LEASE, now: T0 })),
          );
          assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
          const winner = outcomes.findIndex((o) => o.kind === 'claimed');
          const token = (outcomes[winner] as { token: string }).token;
          const holder = winner % 2 === 0 ? store : sibling;
          const other = winner % 2 === 0 ? sibling : store;
          assert.equal(await holder.complete(s, 'k', token, { ttlMs: 60_000, now: T0 }), true);
          assert.deepEqual(await other.claim(s, 'k', { ...LEASE, now: T0 + 1 }), { kind: 'done' });
        } finally {
          await sibling.close();
        }
      });
    }
  });
}
