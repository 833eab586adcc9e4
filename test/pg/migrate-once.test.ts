// test-timeout-ms: 240000
// Several `adcp serve --store-url postgres://...` processes started together on an empty schema:
// the migrations run once (one transaction under the advisory lock), every process starts and
// reports ready, none reports an error.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PG_MIGRATIONS } from '../../src/store/pg-migrations.js';
import { spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';
import { adminQuery, dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';

const INSTANCES = 4;

after(dropTestSchemas);

describe('adcp serve instances starting together on PostgreSQL', { skip: pgSkip }, () => {
  it('migrate the schema once, and all start ready', async () => {
    const schema = testSchema('migrate');
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const url = new URL(pgUrl as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const started = await Promise.allSettled(
      Array.from({ length: INSTANCES }, () => spawnServe(['--store-url', url.toString()])),
    );
    const served = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      const failures = started.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
      assert.deepEqual(failures, []);
      for (const instance of served) {
        const ready = await fetch(instance.mcp.replace(/\/mcp$/, '/readyz'));
        assert.equal(ready.status, 200);
      }
      const { rows } = await adminQuery(
        `SELECT count(*)::int AS versions, count(DISTINCT applied_at)::int AS runs, max(version) AS latest
           FROM ${schema}.adcp_schema_migrations`,
      );
      assert.deepEqual(rows, [{ versions: PG_MIGRATIONS.length, runs: 1, latest: PG_MIGRATIONS.length }]);
    } finally {
      await Promise.all(served.map((instance: ServeProcess) => instance.stop()));
    }
  });
});
