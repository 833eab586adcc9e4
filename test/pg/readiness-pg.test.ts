// Readiness and hand-over on a real PostgreSQL: /readyz turns 503 while the database cannot be
// reached (through a relay the test cuts, never the shared cluster) and 200 once it is back; a
// graceful close that runs out of time leaves its unfinished task to the next instance at once.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { AdcpToolDefinition } from '../../src/server/types.js';
import { ABANDONED_MESSAGE } from '../../src/server/tasks/task-upkeep.js';
import { PgDatabase } from '../../src/store/pg-database.js';
import { PgIdempotencyStore } from '../../src/store/pg-idempotency-store.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import { adminQuery, dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';
import { startTcpRelay } from './tcp-relay.js';

after(dropTestSchemas);

async function readyz(base: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}/readyz`);
  return { status: response.status, text: await response.text() };
}

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 600; i += 1) {
    last = await probe();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

/** A create_media_buy whose work runs until aborted. */
const endless: AdcpToolDefinition = {
  name: 'create_media_buy',
  description: 'Never finishes on its own.',
  mutating: false,
  handler: (_args, context) =>
    context.submit(
      ({ signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    ),
};

describe('createAdcpServer readiness on PostgreSQL', { skip: pgSkip }, () => {
  it('is 503 store_unreachable while the database cannot be reached, and 200 once it is back', async () => {
    const relay = await startTcpRelay(pgUrl as string);
    const database = new PgDatabase({ url: relay.url, schema: testSchema('ready'), connectTimeoutMs: 1_000 });
    const adcp = createAdcpServer({
      validateRequests: false,
      tools: [endless],
      store: new PgTaskStore({ database, sweepIntervalMs: 0 }),
      idempotency: { store: new PgIdempotencyStore({ database }) },
      health: { timeoutMs: 1_500 },
    });
    const listening = await adcp.listen();
    try {
      assert.deepEqual(await readyz(listening.url), { status: 200, text: '{"ready":true}' });
      await relay.cut();
      const down = await until(
        () => readyz(listening.url),
        (r) => r.status === 503,
        'readiness false',
      );
      assert.equal(down.text, '{"ready":false,"reason":"store_unreachable"}');
      assert.equal((await fetch(`${listening.url}/healthz`)).status, 200, 'alive all the same');
      await relay.restore();
      await until(
        () => readyz(listening.url),
        (r) => r.status === 200,
        'readiness back',
      );
    } finally {
      await adcp.close();
      await database.close();
      await relay.close();
    }
  });

  it('hands an unfinished task over on a close that runs out of grace; the next instance fails it at once', async () => {
    const schema = testSchema('handover');
    const open = () => {
      const database = new PgDatabase({ url: pgUrl as string, schema });
      return {
        database,
        adcp: createAdcpServer({
          validateRequests: false,
          tools: [endless],
          // A long lease: without the hand-over, the next instance would wait out these 10 minutes.
          store: new PgTaskStore({ database, sweepIntervalMs: 0, policy: { leaseMs: 600_000 } }),
          idempotency: { store: new PgIdempotencyStore({ database }) },
        }),
      };
    };
    const first = open();
    const listening = await first.adcp.listen();
    const client = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp' });
    const buy = await client.call('create_media_buy', {});
    await client.close();
    assert.equal(buy.status, 'submitted');
    const report = await first.adcp.close({ graceMs: 200 });
    await first.database.close();
    assert.deepEqual(report, { abortedTasks: 0, undeliveredWebhooks: 0, handedOverTasks: 1 });
    const { rows } = await adminQuery(
      `SELECT status, lease_expires_at::text AS lease FROM ${schema}.adcp_server_tasks WHERE task_id = $1`,
      [buy.taskId],
    );
    assert.deepEqual(rows, [{ status: 'submitted', lease: '0' }], 'left unfinished, its lease released');

    const second = open();
    const next = await second.adcp.listen();
    const poller = new AdcpClient({ url: next.mcpUrl, protocol: 'mcp' });
    try {
      const status = await poller.call('get_task_status', { task_id: buy.taskId ?? '' });
      assert.equal(status.data?.['status'], 'failed');
      assert.equal(status.data?.['message'], ABANDONED_MESSAGE);
    } finally {
      await poller.close();
      await second.adcp.close();
      await second.database.close();
    }
  });
});
