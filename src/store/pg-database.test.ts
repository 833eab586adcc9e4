import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PgDatabase } from './pg-database.js';

// Checked before a pool exists, so no server is needed: pg's pool took a max of 0 or NaN as its
// default of 10 and a negative one as a pool that is always full (every query waited out the
// connect timeout).
describe('PgDatabase connect options', () => {
  const url = 'postgres://nobody@127.0.0.1:1/none';

  it('refuses a connection count or a timeout it cannot honour, naming it', () => {
    const bad: [string, number][] = [
      ['maxConnections', 0],
      ['maxConnections', -1],
      ['maxConnections', 1.5],
      ['maxConnections', Number.NaN],
      ['statementTimeoutMs', 0],
      ['connectTimeoutMs', Number.NaN],
      ['idleTimeoutMs', Number.POSITIVE_INFINITY],
    ];
    for (const [name, value] of bad) {
      assert.throws(
        () => new PgDatabase({ url, [name]: value }),
        (error: unknown) => error instanceof RangeError && error.message.includes(`${name} must be a positive`),
        `${name}: ${value}`,
      );
    }
  });

  it('takes sound values (and opens nothing until first use)', async () => {
    const db = new PgDatabase({ url, maxConnections: 1, statementTimeoutMs: 1, connectTimeoutMs: 1, idleTimeoutMs: 1 });
    await db.close();
  });
});
