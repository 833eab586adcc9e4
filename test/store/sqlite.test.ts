import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDedupStore } from '../../src/store/sqlite-dedup-store.js';
import { SqliteOperationStore } from '../../src/store/sqlite-operation-store.js';
import { SqliteIdempotencyStore } from '../../src/store/sqlite-idempotency-store.js';
import { dedupStoreContract } from './dedup-contract.js';
import { idempotencyStoreContract } from './idempotency-contract.js';
import { operationStoreContract } from './operation-contract.js';
import type { ReplayStore } from '../../src/signing/replay-store.js';

const dir = mkdtempSync(join(tmpdir(), 'adcp-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));

dedupStoreContract('SqliteDedupStore (:memory:)', () => new SqliteDedupStore({ path: ':memory:' }));
dedupStoreContract('SqliteDedupStore (file)', () => new SqliteDedupStore({ path: join(dir, 'dedup.db') }), {
  makeSibling: () => new SqliteDedupStore({ path: join(dir, 'dedup.db') }),
});
operationStoreContract('SqliteOperationStore (:memory:)', () => new SqliteOperationStore({ path: ':memory:' }));
operationStoreContract('SqliteOperationStore (file)', () => new SqliteOperationStore({ path: join(dir, 'ops.db') }), {
  makeSibling: () => new SqliteOperationStore({ path: join(dir, 'ops.db') }),
});

idempotencyStoreContract('sqlite (:memory:)', () => new SqliteIdempotencyStore({ path: ':memory:' }));
idempotencyStoreContract('sqlite (file)', () => new SqliteIdempotencyStore({ path: join(dir, 'idem.db') }), {
  makeSibling: () => new SqliteIdempotencyStore({ path: join(dir, 'idem.db') }),
});

describe('SQLite store files', () => {
  it('records a schema_version per component and uses WAL', async () => {
    const path = join(dir, 'schema.db');
    const dedup = new SqliteDedupStore({ path });
    const ops = new SqliteOperationStore({ path });
    await dedup.close();
    await ops.close();
    const db = new Database(path);
    const rows = db.prepare('SELECT component, version FROM schema_version ORDER BY component').all();
    const mode = db.pragma('journal_mode', { simple: true });
    db.close();
    assert.deepEqual(rows, [
      { component: 'operations', version: 1 },
      { component: 'webhook_dedup', version: 1 },
    ]);
    assert.equal(mode, 'wal');
  });

  it('keeps done keys and operations across a reopen of the file', async () => {
    const path = join(dir, 'reopen.db');
    const dedup = new SqliteDedupStore({ path });
    const claimed = (await dedup.claim('s', 'k', { leaseMs: 1000 })) as { token: string };
    await dedup.complete('s', 'k', claimed.token, { ttlMs: 60_000 });
    await dedup.close();
    const ops = new SqliteOperationStore({ path });
    await ops.create({
      operationId: 'op',
      agent: 'a',
      taskType: 't',
      status: 'completed',
      statusAt: 1,
      result: { r: 1 },
    });
    await ops.close();
    const dedup2 = new SqliteDedupStore({ path });
    const ops2 = new SqliteOperationStore({ path });
    assert.deepEqual(await dedup2.claim('s', 'k', { leaseMs: 1000 }), { kind: 'done' });
    assert.deepEqual((await ops2.get('op'))?.result, { r: 1 });
    await dedup2.close();
    await ops2.close();
  });

  it('shares a caller-owned connection without closing it', async () => {
    const db = new Database(':memory:');
    const dedup = new SqliteDedupStore({ database: db });
    const ops = new SqliteOperationStore({ database: db });
    await dedup.close();
    await ops.close();
    assert.equal(db.open, true);
    db.close();
  });

  it('refuses a file written by a newer schema', () => {
    const path = join(dir, 'newer.db');
    const db = new Database(path);
    db.exec(
      "CREATE TABLE schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL); INSERT INTO schema_version VALUES ('webhook_dedup', 99)",
    );
    db.close();
    assert.throws(() => new SqliteDedupStore({ path }), /newer than this library/);
  });

  it('drops the idempotency expiry index from a version 1 file and keeps its keys', async () => {
    // Version 1 indexed expires_at, but the sweep's OR over an unindexed lease_expires_at scans the
    // table anyway: the index only cost every claim a page write (BENCHMARKS.md, issue 12).
    const path = join(dir, 'idem-v1.db');
    const old = new Database(path);
    old.exec(`CREATE TABLE schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
      INSERT INTO schema_version VALUES ('seller_idempotency', 1);
      CREATE TABLE seller_idempotency (scope TEXT NOT NULL, key TEXT NOT NULL, payload_hash TEXT NOT NULL,
        token TEXT NOT NULL, response TEXT, lease_expires_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)) WITHOUT ROWID;
      CREATE INDEX seller_idempotency_expiry ON seller_idempotency (expires_at);`);
    const now = Date.now();
    old
      .prepare('INSERT INTO seller_idempotency VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('p', 'key-from-version-1', 'h'.repeat(64), 't', '{"ok":true}', now - 1000, now + 60_000);
    old.close();
    const store = new SqliteIdempotencyStore({ path });
    const claim = await store.claim('p', 'key-from-version-1', { payloadHash: 'h'.repeat(64), leaseMs: 1000 });
    await store.close();
    const db = new Database(path);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'seller_idempotency'")
      .all();
    const version = db.prepare("SELECT version FROM schema_version WHERE component = 'seller_idempotency'").get();
    const plan = db
      .prepare(
        'EXPLAIN QUERY PLAN DELETE FROM seller_idempotency WHERE (response IS NOT NULL AND expires_at <= 1) OR (response IS NULL AND lease_expires_at <= 1)',
      )
      .all() as { detail: string }[];
    db.close();
    assert.deepEqual(claim, { kind: 'replay', response: { ok: true }, token: 't' });
    assert.deepEqual(indexes, []);
    assert.deepEqual(version, { version: 2 });
    assert.match(plan.map((row) => row.detail).join(';'), /SCAN seller_idempotency/);
  });

  it('refuses a missing path with a TypeError', () => {
    assert.throws(() => new SqliteDedupStore({ path: '' }), TypeError);
  });
});

describe('SqliteWriteBatcher (group commit)', () => {
  it('commits writes queued in one turn together, visible to another connection once they settle', async () => {
    const path = join(dir, 'batch.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const { writeBatcherFor } = await import('../../src/store/sqlite-write-batcher.js');
    const batcher = writeBatcherFor(db);
    const results = await Promise.all([1, 2, 3].map((v) => batcher.run(() => insert.run(v).changes)));
    const reader = new Database(path, { readonly: true });
    const count = (reader.prepare('SELECT COUNT(*) AS n FROM t').get() as { n: number }).n;
    reader.close();
    db.close();
    assert.deepEqual(results, [1, 1, 1]);
    assert.equal(count, 3);
  });

  it('fails a throwing write alone and commits the others', async () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const { writeBatcherFor } = await import('../../src/store/sqlite-write-batcher.js');
    const batcher = writeBatcherFor(db);
    const settled = await Promise.allSettled([
      batcher.run(() => insert.run(1)),
      batcher.run(() => insert.run(null)),
      batcher.run(() => insert.run(3)),
    ]);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(db.prepare('SELECT v FROM t ORDER BY v').all(), [{ v: 1 }, { v: 3 }]);
    db.close();
  });
});

describe('SqliteReplayStore', () => {
  it('records a nonce once across two connections to the same file', async () => {
    const { SqliteReplayStore } = await import('../../src/store/sqlite-replay-store.js');
    const path = join(dir, 'replay.db');
    const a = new SqliteReplayStore({ path });
    const b = new SqliteReplayStore({ path });
    const outcomes = await Promise.all([a.record('k', 'n', 2000, 1000), b.record('k', 'n', 2000, 1000)]);
    assert.deepEqual(outcomes.sort(), ['recorded', 'replayed']);
    assert.equal(await a.record('k', 'n', 3000, 2000), 'recorded', 'an expired entry no longer counts');
    await a.close();
    await b.close();
  });

  it('answers rate_abuse at the per-keyid cap and frees the cap as entries expire', async () => {
    const { SqliteReplayStore } = await import('../../src/store/sqlite-replay-store.js');
    const store = new SqliteReplayStore({ path: ':memory:', perKeyidCap: 2 });
    await store.record('k', 'a', 1100, 1000);
    await store.record('k', 'b', 1500, 1000);
    assert.equal(await store.isAtCapacity('k', 1000), true);
    assert.equal(await store.record('k', 'c', 1500, 1000), 'rate_abuse');
    assert.equal(await store.record('other', 'c', 1500, 1000), 'recorded');
    assert.equal(await store.isAtCapacity('k', 1100), false);
    assert.equal(await store.record('k', 'c', 1500, 1100), 'recorded');
    await store.close();
  });

  it('can back the RFC 9421 verifier as its ReplayStore', async () => {
    const { SqliteReplayStore } = await import('../../src/store/sqlite-replay-store.js');
    const store: ReplayStore = new SqliteReplayStore({ path: ':memory:' });
    assert.equal(await store.record('k', 'n', 10, 1), 'recorded');
  });
});
