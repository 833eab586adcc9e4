import type { PoolClient } from 'pg';

/**
 * The PostgreSQL schema, one entry per version, never edited once released: a change is a new
 * entry. Timestamps are epoch milliseconds (bigint) because the store interfaces take `now`;
 * JSON bodies are text, stored and returned byte for byte. Webhook keys come from the sender
 * and may hold any JS string (NUL, lone surrogates), which PostgreSQL text cannot: they are
 * stored as their UTF-16LE bytes, a lossless encoding.
 */
export const PG_MIGRATIONS: readonly { name: string; sql: string }[] = [
  {
    name: 'webhook dedup keys',
    sql: `CREATE TABLE adcp_webhook_dedup (
      scope text NOT NULL,
      key bytea NOT NULL,
      state text NOT NULL CHECK (state IN ('processing', 'done')),
      token text NOT NULL,
      lease_expires_at bigint NOT NULL,
      expires_at bigint,
      fingerprint text,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX adcp_webhook_dedup_expiry ON adcp_webhook_dedup (expires_at) WHERE state = 'done';`,
  },
  {
    name: 'operations',
    sql: `CREATE TABLE adcp_operations (
      operation_id text COLLATE "C" PRIMARY KEY,
      agent text NOT NULL,
      task_type text NOT NULL,
      task_id text,
      status text NOT NULL,
      status_rank integer NOT NULL,
      result text,
      status_at bigint NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL
    );
    CREATE INDEX adcp_operations_created ON adcp_operations (created_at, operation_id);`,
  },
  {
    name: 'server tasks',
    sql: `CREATE TABLE adcp_server_tasks (
      task_id text COLLATE "C" PRIMARY KEY,
      owner text NOT NULL,
      kind text NOT NULL,
      task_type text,
      status text NOT NULL,
      status_message text,
      ttl_ms bigint,
      poll_interval_ms bigint NOT NULL,
      created_at bigint NOT NULL,
      last_updated_at bigint NOT NULL,
      expires_at bigint,
      request_json text,
      result_json text
    );
    CREATE INDEX adcp_server_tasks_owner ON adcp_server_tasks (owner, created_at DESC, task_id DESC);
    CREATE INDEX adcp_server_tasks_expiry ON adcp_server_tasks (expires_at) WHERE expires_at IS NOT NULL;`,
  },
  {
    name: 'webhook replay cache',
    sql: `CREATE TABLE adcp_webhook_replay (
      keyid text NOT NULL,
      nonce text NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (keyid, nonce)
    );
    CREATE INDEX adcp_webhook_replay_live ON adcp_webhook_replay (keyid, expires_at);
    CREATE INDEX adcp_webhook_replay_expiry ON adcp_webhook_replay (expires_at);`,
  },
  {
    name: 'seller idempotency',
    sql: `CREATE TABLE adcp_idempotency (
      scope text NOT NULL,
      key bytea NOT NULL,
      payload_hash text NOT NULL,
      token text NOT NULL,
      response text,
      lease_expires_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX adcp_idempotency_expiry ON adcp_idempotency (expires_at);`,
  },
  {
    name: 'server task leases',
    sql: `ALTER TABLE adcp_server_tasks ADD COLUMN runner text, ADD COLUMN lease_expires_at bigint;
    CREATE INDEX adcp_server_tasks_runner ON adcp_server_tasks (runner)
      WHERE status NOT IN ('completed', 'failed', 'cancelled', 'canceled', 'rejected');
    CREATE INDEX adcp_server_tasks_lease ON adcp_server_tasks (lease_expires_at)
      WHERE status NOT IN ('completed', 'failed', 'cancelled', 'canceled', 'rejected');`,
  },
  {
    // The reference seller's own state (`adcp serve --store-url`): a fleet shares its media buys.
    name: 'reference seller state',
    sql: `CREATE TABLE adcp_seller_media_buys (
      principal text NOT NULL,
      media_buy_id text COLLATE "C" NOT NULL,
      body text NOT NULL,
      created_at bigint NOT NULL,
      PRIMARY KEY (principal, media_buy_id)
    );
    CREATE TABLE adcp_seller_creatives (
      principal text NOT NULL,
      creative_id text COLLATE "C" NOT NULL,
      body text NOT NULL,
      updated_at bigint NOT NULL,
      PRIMARY KEY (principal, creative_id)
    );
    CREATE TABLE adcp_seller_fixtures (
      principal text NOT NULL,
      kind text NOT NULL,
      id text COLLATE "C" NOT NULL,
      body text NOT NULL,
      PRIMARY KEY (principal, kind, id)
    );`,
  },
  {
    // Webhooks owed by task status changes, written with the status (src/store/webhook-outbox.ts).
    name: 'webhook outbox',
    sql: `CREATE TABLE adcp_webhook_outbox (
      id text COLLATE "C" PRIMARY KEY,
      task_id text NOT NULL,
      destination_json text NOT NULL,
      envelope_json text NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL,
      created_at bigint NOT NULL,
      next_attempt_at bigint NOT NULL,
      lease_owner text,
      lease_expires_at bigint NOT NULL,
      settled_at bigint,
      last_error text
    );
    CREATE INDEX adcp_webhook_outbox_due ON adcp_webhook_outbox (next_attempt_at) WHERE state = 'pending';
    CREATE INDEX adcp_webhook_outbox_task ON adcp_webhook_outbox (task_id);
    CREATE INDEX adcp_webhook_outbox_settled ON adcp_webhook_outbox (settled_at) WHERE state <> 'pending';`,
  },
  {
    // The media-buy kit's entities (src/kit/pg-records.ts): written compare-and-set on version.
    name: 'media-buy kit records',
    sql: `CREATE TABLE adcp_kit_records (
      principal text NOT NULL,
      kind text NOT NULL,
      id text COLLATE "C" NOT NULL,
      body text NOT NULL,
      version integer NOT NULL,
      PRIMARY KEY (principal, kind, id)
    );`,
  },
];

/** Arbitrary constant naming our advisory lock: "adcp" in ASCII. */
const MIGRATION_LOCK = 0x61646370;

/**
 * Brings the schema to the latest version inside one transaction holding a transaction-scoped
 * advisory lock, so processes starting together apply each migration once and the others wait,
 * then see it done. A database migrated by a newer library is refused rather than guessed at.
 */
export async function migratePg(client: PoolClient, schema?: string, migrations = PG_MIGRATIONS): Promise<number> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // The name was checked to be a plain identifier by PgDatabase; search_path already names it.
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS adcp_schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM adcp_schema_migrations',
    );
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(`schema version ${current} is newer than this library (${migrations.length}); upgrade adcp-wire`);
    }
    for (let version = current + 1; version <= migrations.length; version += 1) {
      const migration = migrations[version - 1] as { name: string; sql: string };
      await client.query(migration.sql);
      await client.query('INSERT INTO adcp_schema_migrations (version, name) VALUES ($1, $2)', [
        version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    return migrations.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
