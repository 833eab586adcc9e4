import type pg from 'pg';
import type { PoolClient } from 'pg';
import { requirePeer } from './require-peer.js';
import { describePgUrl, isRetryablePgError, toPgStoreError } from './pg-errors.js';
import { migratePg } from './pg-migrations.js';

// The public signatures below name their own row and result types, not pg's: an app that never
// uses PostgreSQL must compile with `skipLibCheck: false` without `@types/pg` (issue 32 item 15).
// pg's `QueryResult<R>` is one of these, so the driver's answers pass through unchanged.

/** A row as the driver returns it: column name -> value (pg's `QueryResultRow`). */
// oxlint-disable-next-line no-explicit-any -- the driver's own row type, so any row type fits
export type PgRow = { [column: string]: any };

/** What a statement answered, as far as the stores read it (pg's `QueryResult` fits). */
export interface PgQueryResult<R extends PgRow = PgRow> {
  rows: R[];
  rowCount: number | null;
}

/** How a PostgreSQL store connects. Every figure is per process. */
export interface PgConnectOptions {
  /** `postgres://user:password@host:port/database` (or `postgresql://`). */
  url: string;
  /** Most connections this process holds (default 10). */
  maxConnections?: number;
  /** Server-side `statement_timeout` for every statement, ms (default 5,000). */
  statementTimeoutMs?: number;
  /** Give up opening a connection after this many ms (default 5,000). */
  connectTimeoutMs?: number;
  /** Close connections idle this long, ms (default 30,000). */
  idleTimeoutMs?: number;
  /** Shown in `pg_stat_activity` (default `adcp-wire`). */
  applicationName?: string;
  /**
   * PostgreSQL schema holding the tables (created if missing; default: the server's search
   * path, usually `public`). Lets several deployments or tests share one database.
   */
  schema?: string;
}

/** A store opens its own database from a URL, or shares one (and then does not close it). */
export type PgStoreOptions = PgConnectOptions | { database: PgDatabase };

/** The connection a `transaction` callback runs its statements on (named prepared statements, as `query`). */
export interface PgTransactionClient {
  query<R extends PgRow = PgRow>(sql: string, values?: unknown[]): Promise<PgQueryResult<R>>;
}

/** A numeric connect option, when given: a positive number (a whole one for a count), else a RangeError naming it. */
function checkPositive(name: string, value: number | undefined, whole = false): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new RangeError(
      `PostgreSQL store: ${name} must be a positive ${whole ? 'whole number' : 'number of milliseconds'}`,
    );
  }
}

/** Distinct SQL texts prepared per connection; past it (ad hoc SQL), statements run unnamed. */
const MAX_PREPARED = 200;

/**
 * A `pg.Pool` plus the schema: the first use checks the server is reachable and migrates
 * (`connect()` does it eagerly, for a clear error at start). Broken connections (database
 * restart, network cut) are dropped by the pool and replaced on next use; the statements that
 * were in flight on them fail with a retryable `AdcpWireError` (`store`).
 */
export class PgDatabase {
  readonly #pool: pg.Pool;
  readonly #where: string;
  readonly #schema: string | undefined;
  readonly #statementNames = new Map<string, string>();
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: PgConnectOptions) {
    if (typeof options?.url !== 'string' || !/^postgres(ql)?:\/\//.test(options.url)) {
      throw new TypeError("PostgreSQL store: pass { url: 'postgres://user@host:5432/db' }");
    }
    if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema)) {
      throw new TypeError('PostgreSQL store: schema must be a lowercase SQL identifier ([a-z_][a-z0-9_]*)');
    }
    // pg's pool reads a max of 0 or NaN as its default (10) and a negative one as "always full".
    checkPositive('maxConnections', options.maxConnections, true);
    checkPositive('statementTimeoutMs', options.statementTimeoutMs);
    checkPositive('connectTimeoutMs', options.connectTimeoutMs);
    checkPositive('idleTimeoutMs', options.idleTimeoutMs);
    this.#schema = options.schema;
    this.#where = describePgUrl(options.url) + (options.schema === undefined ? '' : ` (schema ${options.schema})`);
    this.#pool = new (pgDriver().Pool)({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      statement_timeout: options.statementTimeoutMs ?? 5000,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
      application_name: options.applicationName ?? 'adcp-wire',
      keepAlive: true,
      ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    });
    // A connection killed by a restart emits 'error' (on the pool when idle, on the client when
    // checked out between two statements); unheard, that would crash the process. The pool
    // discards the broken client, and the statement that needed it fails with a retryable error.
    this.#pool.on('error', () => undefined);
    this.#pool.on('connect', (client) => client.on('error', () => undefined));
  }

  /** Where this database is (`host:port/db`), for messages. */
  get where(): string {
    return this.#where;
  }

  /** Connects and migrates now; throws `AdcpWireError` (`store`) if the server is unreachable. */
  async connect(): Promise<this> {
    await this.#ensureReady();
    return this;
  }

  /**
   * Runs one statement on any pooled connection, as a named prepared statement: each connection
   * parses and plans a given SQL text once, which halves the server's CPU per webhook.
   */
  async query<R extends PgRow = PgRow>(what: string, sql: string, values: unknown[] = []): Promise<PgQueryResult<R>> {
    await this.#ensureReady();
    try {
      return await this.#pool.query<R>(this.#statement(sql, values));
    } catch (error) {
      throw toPgStoreError(what, this.#where, error);
    }
  }

  /**
   * Runs `fn` in one transaction on one connection; rolls back if it throws. Its statements are
   * named prepared statements too (the same names as `query`), so each connection parses and
   * plans them once.
   */
  async transaction<T>(what: string, fn: (client: PgTransactionClient) => Promise<T>): Promise<T> {
    await this.#ensureReady();
    const client = await this.#checkout(what);
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const value = await fn({
        query: <R extends PgRow>(sql: string, values: unknown[] = []) => client.query<R>(this.#statement(sql, values)),
      });
      await client.query('COMMIT');
      return value;
    } catch (error) {
      broken = error;
      await client.query('ROLLBACK').catch(() => undefined);
      // The caller's own errors (a handler refusing, a cap reached) pass through unchanged.
      throw isDriverError(error) ? toPgStoreError(what, this.#where, error) : error;
    } finally {
      // A connection that failed mid-transaction may be dead or confused: do not reuse it.
      client.release(broken !== undefined && isDriverError(broken) ? (broken as Error) : undefined);
    }
  }

  /**
   * Throws `AdcpWireError` (`store`) unless the server answers a trivial statement now (and the
   * schema is migrated): what readiness probes ask.
   */
  async ping(): Promise<void> {
    await this.query('ping', 'SELECT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  /** `sql` as a named statement (a name per distinct text, up to MAX_PREPARED), else unnamed. */
  #statement(sql: string, values: unknown[]): { name?: string; text: string; values: unknown[] } {
    let name = this.#statementNames.get(sql);
    if (name === undefined && this.#statementNames.size < MAX_PREPARED) {
      name = `adcp_${this.#statementNames.size}`;
      this.#statementNames.set(sql, name);
    }
    return name === undefined ? { text: sql, values } : { name, text: sql, values };
  }

  async #checkout(what: string): Promise<PoolClient> {
    if (this.#closed) throw toPgStoreError(what, this.#where, new Error('the store is closed'));
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw toPgStoreError(what, this.#where, error);
    }
  }

  #ensureReady(): Promise<void> {
    if (this.#ready === undefined) {
      this.#ready = this.#migrate().catch((error: unknown) => {
        this.#ready = undefined; // the next call tries again: the server may be back by then
        throw error;
      });
    }
    return this.#ready;
  }

  async #migrate(): Promise<void> {
    const client = await this.#checkout('connect');
    let broken: unknown;
    try {
      await migratePg(client, this.#schema);
    } catch (error) {
      broken = error;
      throw toPgStoreError('schema migration', this.#where, error);
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
  }
}

/** Opens the database a store was given, or adopts a shared one; says who must close it. */
export function openPgDatabase(options: PgStoreOptions): { database: PgDatabase; owned: boolean } {
  if ('database' in options) return { database: options.database, owned: false };
  return { database: new PgDatabase(options), owned: true };
}

/** bigint columns arrive as strings from node-postgres; epoch ms fit a double exactly. */
export function toMs(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** The `pg` module, loaded when the first PostgreSQL store is made (an optional peer dependency). */
function pgDriver(): typeof pg {
  return requirePeer<typeof pg>('pg', 'The PostgreSQL store');
}

/** An error from the driver or the server (SQLSTATE, socket), as opposed to one thrown by a caller's callback. */
function isDriverError(error: unknown): boolean {
  return (
    error instanceof pgDriver().DatabaseError ||
    typeof (error as { code?: unknown })?.code === 'string' ||
    isRetryablePgError(error)
  );
}
