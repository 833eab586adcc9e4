// Issue 10 item 1: concurrent retries of one create_media_buy (same idempotency_key, same
// payload) against the reference seller must create one task and one media buy, on SQLite and on
// PostgreSQL, over MCP and A2A (security.md, Idempotency, rule 9: first insert wins).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { AdcpClient } from '../../src/client/index.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { TaskResult } from '../../src/core/task-result.js';
import { adminQuery, pgSkip, pgUrl } from '../pg/pg-test-env.js';

const CONCURRENT = 20;
const fastClock = { sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20))) };

interface Backend {
  name: string;
  skip: string | false;
  start(): Promise<{ seller: ReferenceSeller; countTasks: () => Promise<number>; cleanup: () => Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    skip: false,
    async start() {
      const seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 60 } });
      return { seller, countTasks: async () => Number.NaN, cleanup: async () => undefined };
    },
  },
  {
    name: 'PostgreSQL',
    skip: pgSkip,
    async start() {
      const schema = `adcp_race_${randomUUID().slice(0, 8)}`;
      await adminQuery(`CREATE SCHEMA ${schema}`);
      const url = new URL(pgUrl as string);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const seller = await startReferenceSeller({
        storeUrl: url.toString(),
        timings: { workingAfterMs: 10, completeAfterMs: 60 },
      });
      // AdCP tasks only: on a loaded machine the 2026-era MCP endpoint may also wrap a slow call
      // (a replay waiting on the claim) in an MCP Task of the same task_type (kind 'mcp').
      const countTasks = async () =>
        Number(
          (
            await adminQuery(
              `SELECT count(*) AS n FROM ${schema}.adcp_server_tasks WHERE kind = 'adcp' AND task_type = 'create_media_buy'`,
            )
          ).rows[0].n,
        );
      return { seller, countTasks, cleanup: () => adminQuery(`DROP SCHEMA ${schema} CASCADE`).then(() => undefined) };
    },
  },
];

for (const backend of backends) {
  describe(
    `reference seller on ${backend.name}: ${CONCURRENT} concurrent retries of one create_media_buy`,
    {
      skip: backend.skip,
    },
    () => {
      let started: Awaited<ReturnType<Backend['start']>>;
      const clients: AdcpClient[] = [];
      before(async () => {
        started = await backend.start();
      });
      after(async () => {
        for (const client of clients) await client.close().catch(() => undefined);
        await started?.seller.close();
        await started?.cleanup();
      });

      const open = (protocol: 'mcp' | 'a2a') => {
        const seller = started.seller;
        const client = new AdcpClient({
          url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
          protocol,
          clock: fastClock,
          timeoutMs: 20_000,
        });
        clients.push(client);
        return client;
      };

      const mediaBuys = async (): Promise<number> => {
        const result = await open('mcp').call('get_media_buy_delivery', {});
        assert.equal(result.status, 'completed');
        return ((result.data?.media_buy_deliveries ?? []) as unknown[]).length;
      };

      for (const protocol of ['mcp', 'a2a'] as const) {
        it(`creates one task and one media buy over ${protocol.toUpperCase()}`, async () => {
          const buysBefore = await mediaBuys();
          const tasksBefore = await started.countTasks();
          const key = randomUUID();
          const args = mediaBuyRequest([packageRequest('display_news', 10)], { buyer_ref: `race-${protocol}` });
          const results: TaskResult[] = await Promise.all(
            Array.from({ length: CONCURRENT }, () =>
              open(protocol).call('create_media_buy', args, { idempotencyKey: key }),
            ),
          );
          for (const result of results) assert.equal(result.status, 'submitted', JSON.stringify(result));
          const taskIds = new Set(results.map((r) => r.taskId));
          assert.equal(taskIds.size, 1, `one task for one key, got ${taskIds.size}`);
          assert.equal(
            results.filter((r) => r.data?.replayed === true).length,
            CONCURRENT - 1,
            'every other answer is a replay',
          );
          const first = results.find((r) => r.data?.replayed !== true) as TaskResult;
          const final = await open(protocol).waitFor(first, { timeoutMs: 15_000, pollIntervalMs: 10 });
          assert.equal(final.status, 'completed');
          assert.equal((await mediaBuys()) - buysBefore, 1, 'one media buy for one key');
          if (!Number.isNaN(tasksBefore))
            assert.equal((await started.countTasks()) - tasksBefore, 1, 'one stored task');
        });
      }
    },
  );
}
