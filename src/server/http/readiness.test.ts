import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createReadiness } from './readiness.js';

const reachable = { ping: async () => undefined };
const unreachable = {
  ping: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:5432 password=secret');
  },
};

describe('createReadiness', () => {
  it('is not ready while starting, ready once serving with its stores reachable', async () => {
    const readiness = createReadiness({ stores: [reachable], timeoutMs: 1000, cacheMs: 0 });
    assert.deepEqual(await readiness.state(), { ready: false, reason: 'starting' });
    readiness.serving();
    assert.deepEqual(await readiness.state(), { ready: true });
  });

  it('says store_unreachable, and nothing of the error, when a ping fails', async () => {
    const readiness = createReadiness({ stores: [reachable, unreachable, {}], timeoutMs: 1000, cacheMs: 0 });
    readiness.serving();
    const state = await readiness.state();
    assert.deepEqual(state, { ready: false, reason: 'store_unreachable' });
    assert.doesNotMatch(JSON.stringify(state), /ECONNREFUSED|secret|5432/);
  });

  it('counts a ping that does not answer within timeoutMs as unreachable', async () => {
    const hanging = { ping: () => new Promise<void>(() => undefined) };
    const readiness = createReadiness({ stores: [hanging], timeoutMs: 50, cacheMs: 0 });
    readiness.serving();
    const started = Date.now();
    assert.deepEqual(await readiness.state(), { ready: false, reason: 'store_unreachable' });
    assert.ok(Date.now() - started < 5_000);
  });

  it("is not ready when the caller's check rejects", async () => {
    const readiness = createReadiness({
      stores: [reachable],
      check: () => Promise.reject(new Error('downstream down')),
      timeoutMs: 1000,
      cacheMs: 0,
    });
    readiness.serving();
    assert.deepEqual(await readiness.state(), { ready: false, reason: 'check_failed' });
  });

  it('shares one round between concurrent probes and reuses it for cacheMs', async () => {
    let pings = 0;
    let clock = 0;
    const counted = { ping: async () => void (pings += 1) };
    const readiness = createReadiness({ stores: [counted], timeoutMs: 1000, cacheMs: 1000, now: () => clock });
    readiness.serving();
    await Promise.all(Array.from({ length: 10 }, () => readiness.state()));
    assert.equal(pings, 1);
    clock = 999;
    await readiness.state();
    assert.equal(pings, 1);
    clock = 1000;
    await readiness.state();
    assert.equal(pings, 2);
  });

  it('is not ready from the moment it drains, whatever the stores say, and stays so', async () => {
    const readiness = createReadiness({ stores: [reachable], timeoutMs: 1000, cacheMs: 60_000 });
    readiness.serving();
    assert.deepEqual(await readiness.state(), { ready: true });
    readiness.drain();
    readiness.serving();
    assert.equal(readiness.phase, 'draining');
    assert.deepEqual(await readiness.state(), { ready: false, reason: 'stopping' });
  });
});
