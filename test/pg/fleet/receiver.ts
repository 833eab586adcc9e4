// One webhook receiver process of the fleet test and benchmark: createWebhookHandler on
// node:http (127.0.0.1, free port), stores from FLEET_STORE_URL (PostgreSQL, or a SQLite file for
// the benchmark's baseline). Prints {"port":N} on stdout once listening; SIGTERM closes it.
//   FLEET_HANDLER=txn   the handler records its run and completes the dedup key in one
//                       PostgreSQL transaction (exactly once even if this process is killed)
//   FLEET_HANDLER=noop  no handler (the benchmark measures the library path)
//   FLEET_SEPARATE_CALLS=1  hide PgDedupStore.claimAndAdvance: claim, read and advance the
//                       operation, complete as separate statements (the benchmark's before)
//   FLEET_HANDLER=empty an async handler that does nothing (the key is completed after it, as
//                       for any handler, instead of in the claim's own statement)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler } from '../../../src/webhooks/index.js';
import { PgDatabase } from '../../../src/store/pg-database.js';
import { PgDedupStore } from '../../../src/store/pg-dedup-store.js';
import { PgOperationStore } from '../../../src/store/pg-operation-store.js';
import { openStoresFromUrl, isPgUrl } from '../../../src/store/pg-open-stores.js';
import type { DedupStore, OperationStore } from '../../../src/store/types.js';
import { FLEET_SECRET } from './deliveries.js';

const url = process.env.FLEET_STORE_URL ?? '';
const schema = process.env.FLEET_SCHEMA || undefined;
const name = process.env.FLEET_RECEIVER ?? `r${process.pid}`;
const leaseMs = Number(process.env.FLEET_LEASE_MS ?? 3000);
const mode = process.env.FLEET_HANDLER ?? 'noop';
const maxConnections = Number(process.env.FLEET_MAX_CONNECTIONS ?? 8);

let dedup: DedupStore;
let operations: OperationStore;
let close: () => Promise<void>;
let onEvent: Parameters<typeof createWebhookHandler>[0]['onEvent'];

if (isPgUrl(url)) {
  const db = await new PgDatabase({ url, maxConnections, ...(schema ? { schema } : {}) }).connect();
  const pgDedup = new PgDedupStore({ database: db });
  dedup = pgDedup;
  operations = new PgOperationStore({ database: db });
  close = () => db.close();
  if (mode === 'txn') {
    onEvent = async (event) => {
      await db.transaction('fleet handler', async (client) => {
        await client.query(
          'INSERT INTO fleet_runs (key, operation_id, status, receiver, pid) VALUES ($1, $2, $3, $4, $5)',
          [event.idempotencyKey, event.operationId ?? null, event.status, name, process.pid],
        );
        if (!(await pgDedup.completeIn(client, event.claim)))
          throw new Error('lease lost: another delivery holds this key');
      });
    };
  }
} else {
  const stores = await openStoresFromUrl({ url, sweepIntervalMs: 0 });
  dedup = stores.dedup;
  operations = stores.operations;
  close = () => stores.close();
}

if (process.env.FLEET_SEPARATE_CALLS === '1') {
  const store = dedup;
  dedup = {
    claim: (...args) => store.claim(...args),
    complete: (...args) => store.complete(...args),
    release: (...args) => store.release(...args),
    sweep: (...args) => store.sweep(...args),
    close: () => store.close(),
  };
}
if (mode === 'empty') onEvent = async () => undefined;

const handler = createWebhookHandler({
  signature: { scheme: 'hmac', secret: FLEET_SECRET },
  dedup,
  operations,
  agent: 'https://seller.fleet.test',
  leaseMs,
  ...(onEvent !== undefined ? { onEvent } : {}),
});
const server = createServer(handler.node);
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, pid: process.pid })}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void close().finally(() => process.exit(0)));
});
