import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isPgUrl, openStoresFromUrl } from '../../src/store/pg-open-stores.js';
import { isAdcpWireError } from '../../src/core/wire-error.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from '../pg/pg-test-env.js';

const dir = mkdtempSync(join(tmpdir(), 'adcp-open-stores-'));
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropTestSchemas();
});

describe('openStoresFromUrl', () => {
  it('recognises postgres:// and postgresql:// URLs only', () => {
    assert.equal(isPgUrl('postgres://u@h/db'), true);
    assert.equal(isPgUrl('postgresql://u@h/db'), true);
    assert.equal(isPgUrl('./state.db'), false);
    assert.equal(isPgUrl(undefined), false);
  });

  it('opens the in-memory stores when neither a URL nor ADCP_STORE_URL is given', async () => {
    const stores = await openStoresFromUrl({ env: {}, sweepIntervalMs: 0 });
    assert.equal(stores.kind, 'memory');
    assert.equal(stores.where, ':memory:');
    assert.equal(stores.replay, undefined);
    assert.equal((await stores.dedup.claim('s', 'k', { leaseMs: 1000 })).kind, 'claimed');
    await stores.close();
  });

  it('opens a SQLite file named by ADCP_STORE_URL, with or without a sqlite: prefix', async () => {
    const path = join(dir, 'state.db');
    const first = await openStoresFromUrl({ env: { ADCP_STORE_URL: `sqlite:${path}` }, sweepIntervalMs: 0 });
    await first.operations.create({ operationId: 'op', agent: 'a', taskType: 't', status: 'submitted', statusAt: 1 });
    await first.close();
    const second = await openStoresFromUrl({ url: path, sweepIntervalMs: 0 });
    assert.equal(second.where, path);
    assert.equal(await second.replay?.record('kid', 'nonce-1', 2_000_000_000, 1_800_000_000), 'recorded');
    assert.equal((await second.operations.get('op'))?.status, 'submitted');
    await second.close();
  });

  it('fails at start with a store error when PostgreSQL is unreachable', async () => {
    const error = await openStoresFromUrl({
      url: 'postgres://u:pw@127.0.0.1:1/db',
      pg: { connectTimeoutMs: 1000 },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isAdcpWireError(error));
    assert.equal(error.code, 'store');
    assert.match(error.message, /127\.0\.0\.1:1\/db/);
  });

  it('opens all three stores on PostgreSQL for a postgres:// URL', { skip: pgSkip }, async () => {
    const stores = await openStoresFromUrl({ url: pgUrl, pg: { schema: testSchema('open') }, sweepIntervalMs: 0 });
    assert.equal(stores.kind, 'postgres');
    assert.equal(await stores.replay?.record('kid', 'nonce-1', 2_000_000_000, 1_800_000_000), 'recorded');
    assert.doesNotMatch(stores.where, /@/);
    assert.equal((await stores.dedup.claim('s', 'k', { leaseMs: 1000 })).kind, 'claimed');
    const created = await stores.tasks.create({ owner: 'o', kind: 'adcp' });
    assert.equal(created.ok, true);
    const op = await stores.operations.create({
      operationId: 'op',
      agent: 'a',
      taskType: 't',
      status: 'working',
      statusAt: 1,
    });
    assert.equal(op.status, 'working');
    await stores.close();
  });
});
