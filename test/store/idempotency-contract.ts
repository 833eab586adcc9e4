import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IdempotencyStore } from '../../src/store/idempotency-store.js';

const T0 = 1_700_000_000_000;
const LEASE = 30_000;
const TTL = 86_400_000;

/**
 * The behaviour every IdempotencyStore must show (security.md, Idempotency, rules 2-9). Call it once
 * per implementation; `makeSibling` opens a second handle on the same database (another process of
 * a fleet), used by the concurrency case when given. Scopes are fresh per test, so a shared file or
 * schema is fine.
 */
export function idempotencyStoreContract(
  name: string,
  make: () => IdempotencyStore | Promise<IdempotencyStore>,
  options: { makeSibling?: () => IdempotencyStore | Promise<IdempotencyStore> } = {},
): void {
  describe(`IdempotencyStore contract: ${name}`, () => {
    const opened: IdempotencyStore[] = [];
    const open = async (factory: () => IdempotencyStore | Promise<IdempotencyStore>) => {
      const store = await factory();
      opened.push(store);
      return store;
    };
    after(async () => {
      for (const store of opened.reverse()) await store.close();
    });
    const claim = (store: IdempotencyStore, scope: string, hash: string, now = T0, key = 'key-0123456789abcdef') =>
      store.claim(scope, key, { payloadHash: hash, leaseMs: LEASE, now });
    const claimed = async (store: IdempotencyStore, scope: string, hash: string, now = T0) => {
      const outcome = await claim(store, scope, hash, now);
      assert.equal(outcome.kind, 'claimed');
      return (outcome as { token: string }).token;
    };

    it('gives the first claim the key and tells a second one with the same payload that it is in flight', async () => {
      const store = await open(make);
      const scope = randomUUID();
      await claimed(store, scope, 'h1');
      assert.deepEqual(await claim(store, scope, 'h1', T0 + 1), { kind: 'in_flight', leaseExpiresAt: T0 + LEASE });
    });

    it('answers conflict for another payload, in flight and after completion, revealing nothing', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      assert.deepEqual(await claim(store, scope, 'h2', T0 + 1), { kind: 'conflict' });
      assert.equal(
        await store.complete(scope, 'key-0123456789abcdef', token, { response: { a: 1 }, ttlMs: TTL, now: T0 + 2 }),
        true,
      );
      assert.deepEqual(await claim(store, scope, 'h2', T0 + 3), { kind: 'conflict' });
    });

    it('replays the stored response, byte for byte, with the entry token', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      const response = { status: 'submitted', task_id: 't-1', nested: { list: [1, 'two', null] }, text: 'é\u2028' };
      await store.complete(scope, 'key-0123456789abcdef', token, { response, ttlMs: TTL, now: T0 + 1 });
      assert.deepEqual(await claim(store, scope, 'h1', T0 + 2), { kind: 'replay', response, token });
      assert.deepEqual(await claim(store, scope, 'h1', T0 + 3), { kind: 'replay', response, token });
    });

    it('keeps keys apart per scope', async () => {
      const store = await open(make);
      await claimed(store, randomUUID(), 'h1');
      await claimed(store, randomUUID(), 'h2');
    });

    it('forgets a released claim, so a retry runs again (rule 3: errors are not cached)', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      await store.release(scope, 'key-0123456789abcdef', token);
      await claimed(store, scope, 'h2', T0 + 1);
    });

    it('lets a claim whose holder died be taken over once its lease lapsed, and refuses the dead holder', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const dead = await claimed(store, scope, 'h1');
      assert.equal((await claim(store, scope, 'h1', T0 + LEASE - 1)).kind, 'in_flight');
      await claimed(store, scope, 'h1', T0 + LEASE);
      assert.equal(
        await store.complete(scope, 'key-0123456789abcdef', dead, { response: {}, ttlMs: TTL, now: T0 + LEASE }),
        false,
      );
    });

    it('answers expired for a key past its TTL, whatever the payload, then forgets it and sweeps it', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      await store.complete(scope, 'key-0123456789abcdef', token, { response: { a: 1 }, ttlMs: 1000, now: T0 });
      assert.equal((await claim(store, scope, 'h2', T0 + 999)).kind, 'conflict');
      const kept = { payloadHash: 'h1', leaseMs: LEASE, expiredForMs: 5000 };
      assert.deepEqual(await store.claim(scope, 'key-0123456789abcdef', { ...kept, now: T0 + 1000 }), {
        kind: 'expired',
      });
      assert.deepEqual(
        await store.claim(scope, 'key-0123456789abcdef', { ...kept, payloadHash: 'h2', now: T0 + 5999 }),
        { kind: 'expired' },
      );
      assert.equal(await store.sweep(T0 + 5999, { expiredForMs: 5000 }), 0, 'an expired key is kept');
      assert.ok((await store.sweep(T0 + 6000, { expiredForMs: 5000 })) >= 1);
      assert.equal((await store.claim(scope, 'key-0123456789abcdef', { ...kept, now: T0 + 6000 })).kind, 'claimed');
    });

    it('with the TTL given at the claim, replays an answer at least its TTL after it was stored, even past the lease', async () => {
      const store = await open(make);
      const key = 'key-0123456789abcdef';
      const withTtl = (now: number, payloadHash = 'h1') => ({ payloadHash, leaseMs: LEASE, ttlMs: 1000, now });
      // Stored within the lease: replayed until at least 1000 ms later, expired by lease + 1000 after the claim.
      const inTime = randomUUID();
      const first = await store.claim(inTime, key, withTtl(T0));
      assert.equal(first.kind, 'claimed');
      const token = (first as { token: string }).token;
      assert.equal(await store.complete(inTime, key, token, { response: { a: 1 }, ttlMs: 1000, now: T0 + 10 }), true);
      assert.equal((await store.claim(inTime, key, withTtl(T0 + 1009))).kind, 'replay');
      assert.equal((await store.claim(inTime, key, withTtl(T0 + 1009, 'h2'))).kind, 'conflict');
      assert.deepEqual(await store.claim(inTime, key, withTtl(T0 + LEASE + 1000)), { kind: 'expired' });
      // Stored after its lease lapsed (no one took the key over): still replayed for its whole TTL.
      const late = randomUUID();
      const slow = await store.claim(late, key, withTtl(T0));
      const slowToken = (slow as { token: string }).token;
      const storedAt = T0 + LEASE + 5000;
      assert.equal(
        await store.complete(late, key, slowToken, { response: { b: 2 }, ttlMs: 1000, now: storedAt }),
        true,
      );
      assert.deepEqual(await store.claim(late, key, withTtl(storedAt + 999)), {
        kind: 'replay',
        response: { b: 2 },
        token: slowToken,
      });
      assert.deepEqual(await store.claim(late, key, withTtl(storedAt + 1000)), { kind: 'expired' });
    });

    it('takes over a key forgotten past its expiry without a sweep', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      await store.complete(scope, 'key-0123456789abcdef', token, { response: { a: 1 }, ttlMs: 1000, now: T0 });
      const options = { payloadHash: 'h2', leaseMs: LEASE, expiredForMs: 10, now: T0 + 1010 };
      assert.equal((await store.claim(scope, 'key-0123456789abcdef', options)).kind, 'claimed');
    });

    it('reclaims a finished entry once, for the caller that names its token', async () => {
      const store = await open(make);
      const scope = randomUUID();
      const token = await claimed(store, scope, 'h1');
      await store.complete(scope, 'key-0123456789abcdef', token, { response: { a: 1 }, ttlMs: TTL, now: T0 });
      const [a, b] = await Promise.all([
        store.reclaim(scope, 'key-0123456789abcdef', token, { leaseMs: LEASE, now: T0 + 1 }),
        store.reclaim(scope, 'key-0123456789abcdef', token, { leaseMs: LEASE, now: T0 + 1 }),
      ]);
      assert.equal([a, b].filter((r) => r?.kind === 'claimed').length, 1);
      assert.equal((await claim(store, scope, 'h1', T0 + 2)).kind, 'in_flight');
      const winner = (a ?? b) as { token: string };
      assert.equal(
        await store.complete(scope, 'key-0123456789abcdef', winner.token, {
          response: { a: 2 },
          ttlMs: TTL,
          now: T0 + 3,
        }),
        true,
      );
      assert.deepEqual(await claim(store, scope, 'h1', T0 + 4), {
        kind: 'replay',
        response: { a: 2 },
        token: winner.token,
      });
    });

    it('gives exactly one of 40 concurrent claims of one key the key (first insert wins)', async () => {
      const stores = [await open(make)];
      if (options.makeSibling !== undefined)
        stores.push(await open(options.makeSibling), await open(options.makeSibling));
      const scope = randomUUID();
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) => claim(stores[i % stores.length] as IdempotencyStore, scope, 'h1', T0 + i)),
      );
      assert.equal(outcomes.filter((o) => o.kind === 'claimed').length, 1);
      assert.equal(outcomes.filter((o) => o.kind === 'in_flight').length, 39);
      // And with a different payload racing in: one winner, the others in flight or in conflict.
      const scope2 = randomUUID();
      const mixed = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          claim(stores[i % stores.length] as IdempotencyStore, scope2, i % 2 === 0 ? 'h1' : 'h2', T0 + i),
        ),
      );
      assert.equal(mixed.filter((o) => o.kind === 'claimed').length, 1);
      assert.equal(mixed.filter((o) => o.kind === 'conflict').length, 20);
    });
  });
}
