// test-timeout-ms: 300000
// Issue 10 items 3 and 4, and its "Done when": `adcp serve` is SIGKILLed while a media buy is in
// flight and started again on the same state (a SQLite file; PostgreSQL). The buyer's waitFor,
// which was following the task, ends in seconds with a failure it can act on (transient), not at
// its own timeout; a retry with the same idempotency_key runs again instead of replaying the dead
// task, and the buyer ends with exactly one media buy.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdcpClient } from '../../src/client/index.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { adminQuery, pgSkip, pgUrl } from '../pg/pg-test-env.js';
import { killChild as kill, spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';

/**
 * The buyer's own limit is an hour by default. Once the seller is back, the answer must come
 * within about one task lease (10 s) plus a poll; the bound leaves room for a loaded machine.
 */
const ANSWER_WITHIN_MS = 20_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const serve = (args: string[]): Promise<ServeProcess> => spawnServe(args);

interface Backend {
  name: string;
  skip: string | false;
  /** Extra `adcp serve` arguments for this state, and how to drop it afterwards. */
  prepare(dir: string): Promise<{ args: string[]; drop: () => Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    prepare: async (dir) => ({ args: ['--db', join(dir, 'seller.db')], drop: async () => undefined }),
  },
  {
    name: 'PostgreSQL',
    skip: pgSkip,
    async prepare(dir) {
      const schema = `adcp_chaos_${randomUUID().slice(0, 8)}`;
      await adminQuery(`CREATE SCHEMA ${schema}`);
      const url = new URL(pgUrl as string);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return {
        args: ['--db', join(dir, 'seller.db'), '--store-url', url.toString()],
        drop: () => adminQuery(`DROP SCHEMA ${schema} CASCADE`).then(() => undefined),
      };
    },
  },
];

for (const backend of backends) {
  describe(`adcp serve on ${backend.name}, SIGKILLed with a media buy in flight`, { skip: backend.skip }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'adcp-chaos-'));
    const running: ChildProcess[] = [];
    const clients: AdcpClient[] = [];
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      for (const child of running) await kill(child, 'SIGKILL');
      await drop?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers the waiting buyer in seconds, and a retry with the same key buys once', async (t) => {
      const prepared = await backend.prepare(dir);
      drop = prepared.drop;
      const port = String(await freePort());
      const first = await serve(['--port', port, ...prepared.args]);
      running.push(first.child);
      const client = new AdcpClient({ url: first.mcp, timeoutMs: 20_000 });
      clients.push(client);
      const key = randomUUID();
      const args = mediaBuyRequest([packageRequest('display_news', 10)], { buyer_ref: 'chaos' });
      const submitted = await client.call('create_media_buy', args, { idempotencyKey: key });
      assert.equal(submitted.status, 'submitted');

      // The buyer follows the task; the seller dies before approving it (2 s) and comes back.
      const started = performance.now();
      const waiting = client.waitFor(submitted, { pollIntervalMs: 500, maxPollIntervalMs: 1000, timeoutMs: 60_000 });
      await kill(first.child, 'SIGKILL');
      const second = await serve(['--port', port, ...prepared.args]);
      running.push(second.child);
      const back = performance.now();
      const final = await waiting;
      const elapsed = performance.now() - back;

      assert.equal(final.status, 'failed', JSON.stringify(final));
      assert.equal(final.error?.code, 'SERVICE_UNAVAILABLE');
      assert.equal(final.error?.recovery, 'transient', 'the buyer may retry');
      t.diagnostic(
        `waitFor answered ${Math.round(performance.now() - started)} ms after the SIGKILL, ${Math.round(elapsed)} ms after the restart`,
      );
      assert.ok(elapsed < ANSWER_WITHIN_MS, `answered ${Math.round(elapsed)} ms after the restart`);

      // Item 4: the retry runs again (a new task), it is not the dead task replayed.
      const retried = await client.call('create_media_buy', args, { idempotencyKey: key });
      assert.equal(retried.status, 'submitted');
      assert.notEqual(retried.taskId, submitted.taskId);
      assert.notEqual(retried.data?.replayed, true);
      const done = await client.waitFor(retried, { pollIntervalMs: 200, timeoutMs: 30_000 });
      assert.equal(done.status, 'completed', JSON.stringify(done));
      // A retry after success replays it.
      const again = await client.call('create_media_buy', args, { idempotencyKey: key });
      assert.equal(again.taskId, retried.taskId);
      assert.equal(again.data?.replayed, true);
      const delivery = await client.call('get_media_buy_delivery', {});
      const buys = (delivery.data?.media_buy_deliveries ?? []) as unknown[];
      assert.equal(buys.length, 1, 'one media buy for one key');

      await kill(second.child, 'SIGTERM');
    });
  });
}
