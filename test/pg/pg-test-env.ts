// Shared by the PostgreSQL tests: where the database is (ADCP_TEST_PG_URL, set by .ci/run or by
// `eval "$(bash scripts/pg-start.sh)"`), the skip reason when it is not set, and throwaway
// schemas so test files running in parallel on one database never see each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const pgUrl: string | undefined = process.env.ADCP_TEST_PG_URL || undefined;

// .ci/run sets ADCP_REQUIRE_PG=1: there a missing database is a failure, never a skip.
if (pgUrl === undefined && process.env.ADCP_REQUIRE_PG === '1') {
  throw new Error('ADCP_REQUIRE_PG=1 but ADCP_TEST_PG_URL is not set: the PostgreSQL tests cannot run');
}

/** `false` when PostgreSQL is available; otherwise the reason given to `{ skip }`. */
export const pgSkip: string | false =
  pgUrl === undefined ? 'ADCP_TEST_PG_URL is not set: run `eval "$(bash scripts/pg-start.sh)"` first' : false;

const created: string[] = [];

/** A fresh schema name (created on first use by the store's migration), dropped by `dropTestSchemas`. */
export function testSchema(prefix = 't'): string {
  const name = `adcp_${prefix}_${randomBytes(5).toString('hex')}`;
  created.push(name);
  return name;
}

/** Runs SQL as an administrator on the test database. */
export async function adminQuery(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/** Drops every schema handed out by `testSchema` in this process. */
export async function dropTestSchemas(): Promise<void> {
  if (pgUrl === undefined || created.length === 0) return;
  const names = created.splice(0);
  await adminQuery(names.map((n) => `DROP SCHEMA IF EXISTS ${n} CASCADE;`).join('\n'));
}

/**
 * A store URL whose connections use a fresh schema (created now, dropped by `dropTestSchemas`),
 * for processes that take only a URL (`adcp serve --store-url`).
 */
export async function testSchemaUrl(prefix = 't'): Promise<string> {
  const schema = testSchema(prefix);
  await adminQuery(`CREATE SCHEMA ${schema}`);
  const url = new URL(pgUrl as string);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}
