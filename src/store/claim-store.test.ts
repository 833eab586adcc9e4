import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isLive, judgeClaim, type ClaimRow } from './claim-store.js';

const KEEPS = { lapsedLeaseReleases: false }; // webhook dedup
const RELEASES = { lapsedLeaseReleases: true }; // idempotency
const row = (over: Partial<ClaimRow>): ClaimRow => ({
  done: false,
  token: 't',
  fingerprint: 'a',
  leaseExpiresAt: 100,
  expiresAt: 0,
  result: undefined,
  ...over,
});
const ask = (now: number, fingerprint: string | undefined, keptMs = 0) => ({ now, fingerprint, keptMs });

describe('judgeClaim', () => {
  it("takes an unseen key with the claim's fingerprint", () => {
    assert.deepEqual(judgeClaim(undefined, ask(0, 'b'), KEEPS), { kind: 'take', fingerprint: 'b' });
  });

  it('answers busy for a live lease, conflict first for another fingerprint', () => {
    assert.deepEqual(judgeClaim(row({}), ask(50, 'a'), KEEPS), { kind: 'busy', leaseExpiresAt: 100 });
    assert.deepEqual(judgeClaim(row({}), ask(50, 'b'), RELEASES), { kind: 'conflict' });
    assert.deepEqual(judgeClaim(row({}), ask(50, undefined), KEEPS), { kind: 'busy', leaseExpiresAt: 100 });
  });

  it('a lapsed lease: released (any payload takes it) or kept with its first fingerprint', () => {
    assert.deepEqual(judgeClaim(row({}), ask(100, 'b'), RELEASES), { kind: 'take', fingerprint: 'b' });
    assert.deepEqual(judgeClaim(row({}), ask(100, 'b'), KEEPS), { kind: 'conflict' });
    assert.deepEqual(judgeClaim(row({}), ask(100, undefined), KEEPS), { kind: 'take', fingerprint: 'a' });
  });

  it('a done row: done within its TTL, expired while kept, then taken', () => {
    const done = row({ done: true, expiresAt: 200, result: '{}' });
    assert.deepEqual(judgeClaim(done, ask(199, 'a', 50), RELEASES), { kind: 'done', token: 't', result: '{}' });
    assert.deepEqual(judgeClaim(done, ask(200, 'b', 50), RELEASES), { kind: 'expired' });
    assert.deepEqual(judgeClaim(done, ask(250, 'b', 50), RELEASES), { kind: 'take', fingerprint: 'b' });
    assert.deepEqual(judgeClaim(done, ask(200, 'b'), KEEPS), { kind: 'take', fingerprint: 'b' });
  });
});

describe('isLive', () => {
  it('sweeps a lapsed lease only when the policy releases it', () => {
    assert.equal(isLive(row({}), 100, 0, RELEASES), false);
    assert.equal(isLive(row({}), 100, 0, KEEPS), true);
    assert.equal(isLive(row({ done: true, expiresAt: 200 }), 249, 50, KEEPS), true);
    assert.equal(isLive(row({ done: true, expiresAt: 200 }), 250, 50, KEEPS), false);
  });
});
