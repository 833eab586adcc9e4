/**
 * The buyer (AdcpClient and the adcp CLI) against a seller built by others: `@adcp/sdk`'s seller
 * framework (`createAdcpServerFromPlatform`), over MCP and over A2A (its `createA2AAdapter`).
 * The framework validates every request against its schemas, so these requests are valid AdCP 3.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import type { TaskResult } from '../../src/index.js';
import { main } from '../../src/cli/main.js';
import type { JsonObject } from '../../src/core/types.js';
import {
  creativesRequest,
  mediaBuyRequest,
  packageRequest,
  productsRequest,
  SAMPLE_ACCOUNT,
} from '../../src/seller/sample-requests.js';
import { recordingIo } from '../cli/fake-io.js';
import { startFrameworkSeller, type FrameworkSeller } from '../peers/adcp-sdk/seller.js';

const APPROVAL_MS = 300;
const buy = (): JsonObject => mediaBuyRequest([packageRequest('olv_pets', 5000)]);
const BUY = JSON.stringify(buy());

function dataOf(result: TaskResult): Record<string, unknown> {
  assert.ok('data' in result && result.data !== undefined, `no data on a ${result.status} result`);
  return result.data;
}

describe('buyer against the @adcp/sdk framework seller', () => {
  let seller: FrameworkSeller;
  before(async () => {
    seller = await startFrameworkSeller({ approvalMs: APPROVAL_MS });
  });
  after(async () => seller.close());

  for (const protocol of ['mcp', 'a2a'] as const) {
    const url = (): string => (protocol === 'mcp' ? seller.mcpUrl : seller.a2aUrl);

    describe(`over ${protocol}`, () => {
      let client: AdcpClient;
      before(() => {
        // Generous: the framework compiles its schemas on a tool's first call, slow on a loaded machine.
        client = new AdcpClient({ url: url(), protocol, timeoutMs: 60_000 });
      });
      after(async () => client.close());

      it('discovers the seller and its task-status tool', async () => {
        const found = await client.discover();
        assert.equal(found.protocol, protocol);
        assert.ok(found.tools, 'no tools listed');
        const names = found.tools.map((t) => t.name);
        for (const tool of ['get_products', 'create_media_buy', 'tasks_get']) assert.ok(names.includes(tool), tool);
        if (protocol === 'a2a') assert.equal(found.card.card?.['name'], 'framework-seller');
      });

      it('gets products', async () => {
        const result = await client.call('get_products', productsRequest('pets'));
        assert.equal(result.status, 'completed');
        assert.equal(result.protocol, protocol);
        const products = dataOf(result)['products'] as { product_id: string }[];
        assert.deepEqual(products.map((p) => p.product_id).sort(), ['ctv_sports', 'olv_pets']);
      });

      it('answers every other tool it lists: update_media_buy, sync_creatives, get_adcp_capabilities, its task tools', async () => {
        // Every tool the seller lists is called here or by another test of this file.
        const covered = [
          ...['get_products', 'create_media_buy', 'update_media_buy', 'get_media_buys', 'get_media_buy_delivery'],
          ...['sync_creatives', 'get_adcp_capabilities', 'tasks_get', 'tasks/get'],
        ];
        const listed = ((await client.discover()).tools ?? []).map((t) => t.name);
        assert.deepEqual(
          listed.filter((name) => !covered.includes(name)),
          [],
        );
        const submitted = await client.call('create_media_buy', buy());
        const id = dataOf(await client.waitFor(submitted, { pollIntervalMs: 100, timeoutMs: 30_000 }))['media_buy_id'];
        assert.equal(typeof id, 'string');

        const updated = await client.call('update_media_buy', {
          account: SAMPLE_ACCOUNT,
          media_buy_id: String(id),
          paused: true,
        });
        assert.equal(updated.status, 'completed', JSON.stringify(updated));
        assert.equal(dataOf(updated)['media_buy_id'], id);

        const creativeId = `cr_${protocol}_pets_30s`;
        const synced = await client.call('sync_creatives', creativesRequest([{ creative_id: creativeId }]));
        assert.equal(synced.status, 'completed', JSON.stringify(synced));
        assert.deepEqual(
          (dataOf(synced)['creatives'] as { creative_id: string; action: string }[]).map((c) => [
            c.creative_id,
            c.action,
          ]),
          [[creativeId, 'created']],
        );
        assert.ok(seller.creativeIds().includes(creativeId));

        const capabilities = await client.call('get_adcp_capabilities', {});
        assert.equal(capabilities.status, 'completed', JSON.stringify(capabilities));
        assert.deepEqual((dataOf(capabilities)['adcp'] as { major_versions: number[] }).major_versions, [3]);

        // The framework's task tools, called by name as any other tool.
        for (const tool of listed.filter((name) => name === 'tasks_get' || name === 'tasks/get')) {
          const task = await client.call(tool as string, { task_id: submitted.taskId ?? '' });
          assert.equal(task.status, 'completed', `${tool}: ${JSON.stringify(task)}`);
          assert.equal(dataOf(task)['task_id'], submitted.taskId, tool);
        }
      });

      it('creates a media buy (submitted) and follows it with waitFor to completed, once', async () => {
        const before = seller.mediaBuyIds().length;
        const submitted = await client.call('create_media_buy', buy());
        assert.equal(submitted.status, 'submitted');
        assert.match(submitted.taskId ?? '', /^task_/);
        const done = await client.waitFor(submitted, { pollIntervalMs: 100, timeoutMs: 30_000 });
        assert.equal(done.status, 'completed');
        assert.equal(done.taskId, submitted.taskId);
        const id = dataOf(done)['media_buy_id'];
        assert.equal(typeof id, 'string');
        assert.deepEqual(seller.mediaBuyIds().slice(before), [id]);
        const status = await client.getTaskStatus(submitted.taskId ?? '');
        assert.equal(status.status, 'completed');
        assert.equal(dataOf(status)['media_buy_id'], id);
      });

      if (protocol === 'a2a') {
        it('follows a buy sent with returnImmediately to completed', async () => {
          const before = seller.mediaBuyIds().length;
          const first = await client.call('create_media_buy', buy(), {
            returnImmediately: true,
          });
          assert.ok(['submitted', 'working'].includes(first.status), first.status);
          const done = await client.waitFor(first, { pollIntervalMs: 100, timeoutMs: 30_000 });
          assert.equal(done.status, 'completed');
          assert.equal(seller.mediaBuyIds().length, before + 1);
          assert.equal(dataOf(done)['media_buy_id'], seller.mediaBuyIds().at(-1));
        });
      }

      describe("rate limits (RATE_LIMITED, retry_after 1 s, from the framework's RateLimitedError)", () => {
        after(() => seller.rateLimit(0));

        it('retries after the retry_after the seller gives and returns the data', async () => {
          seller.rateLimit(1);
          const calls = seller.deliveryCalls();
          const retries: { attempt: number; delayMs: number; agentAsked: boolean; reason: string }[] = [];
          const result = await client.call('get_media_buy_delivery', {}, { onRetry: (r) => retries.push(r) });
          assert.equal(result.status, 'completed', JSON.stringify(result));
          assert.equal(dataOf(result)['currency'], 'USD');
          assert.equal(seller.deliveryCalls() - calls, 2);
          assert.deepEqual(
            retries.map(({ attempt, delayMs, agentAsked, reason }) => ({ attempt, delayMs, agentAsked, reason })),
            [{ attempt: 2, delayMs: 1000, agentAsked: true, reason: 'RATE_LIMITED' }],
          );
        });

        it('returns the last RATE_LIMITED answer with its retry_after once the attempts are used up', async () => {
          seller.rateLimit(5);
          const limited = new AdcpClient({ url: url(), protocol, timeoutMs: 20_000, retry: { maxAttempts: 2 } });
          try {
            const calls = seller.deliveryCalls();
            const result = await limited.call('get_media_buy_delivery', {});
            assert.equal(result.status, 'failed');
            assert.equal(result.error?.code, 'RATE_LIMITED');
            assert.equal(result.error?.retryDelaySeconds, 1);
            assert.equal(seller.deliveryCalls() - calls, 2);
          } finally {
            await limited.close();
          }
        });

        it('returns the answer at once when its retry_after would pass the deadline', async () => {
          seller.rateLimit(1, 600);
          const started = Date.now();
          const result = await client.call('get_media_buy_delivery', {}, { timeoutMs: 8_000 });
          assert.ok(Date.now() - started < 8_000, 'slept toward the deadline');
          assert.equal(result.status, 'failed');
          assert.equal(result.error?.code, 'RATE_LIMITED');
          assert.equal(result.error?.retryDelaySeconds, 600);
        });

        it('adcp call says which attempt it makes, then prints the data', async () => {
          seller.rateLimit(1);
          const io = recordingIo();
          const argv = ['call', url(), 'get_media_buy_delivery', '{}', '--protocol', protocol, '--json'];
          assert.equal(await main(argv, io), 0, io.err());
          assert.match(io.err(), /RATE_LIMITED: attempt 2 of 3, waiting 1 s as the agent asked/);
          assert.equal((JSON.parse(io.out()) as { status: string }).status, 'completed');
        });

        it('adcp call exits 1 once the attempts are used up, saying how many were made', async () => {
          seller.rateLimit(5);
          const io = recordingIo();
          const argv = ['call', url(), 'get_media_buy_delivery', '{}', '--protocol', protocol];
          assert.equal(await main(argv, io), 1, io.err());
          assert.match(io.err(), /RATE_LIMITED: attempt 3 of 3, waiting 1 s as the agent asked/);
          assert.match(io.out(), /RATE_LIMITED/);
          assert.match(io.out(), /after 3 attempts/);
        });
      });

      if (protocol === 'a2a') {
        it('cancels a running A2A task; waitFor, tasks get and a second cancel then say it is canceled', async () => {
          const hold = seller.holdNext();
          try {
            const first = await client.call('get_media_buys', {}, { returnImmediately: true });
            assert.equal(first.status, 'working');
            const id = first.transportTaskId ?? '';
            assert.match(id, /\S/);
            await hold.started;
            const canceled = await client.cancelTransportTask(id);
            assert.equal(canceled.status, 'canceled');
            assert.equal((await client.getTransportTask(id)).status, 'canceled');
            const waited = await client.waitFor(first, { pollIntervalMs: 100, timeoutMs: 30_000 });
            assert.equal(waited.status, 'canceled');
            const get = recordingIo();
            const getArgv = ['tasks', 'get', url(), id, '--transport-task', '--protocol', 'a2a', '--json'];
            assert.equal(await main(getArgv, get), 0, get.err());
            assert.equal((JSON.parse(get.out()) as { status: string }).status, 'canceled');
            // The seller refuses to cancel a task that has ended: the agent saying no, exit 1.
            const again = recordingIo();
            assert.equal(await main(['tasks', 'cancel', url(), id, '--protocol', 'a2a'], again), 1, again.err());
            assert.match(again.err(), /refused .*Task not cancelable/);
            assert.doesNotMatch(again.err(), /--protocol/);
          } finally {
            hold.release();
          }
        });

        it('adcp tasks cancel and get of an unknown A2A task exit 1', async () => {
          const cancel = recordingIo();
          assert.equal(await main(['tasks', 'cancel', url(), 'no-such-task', '--protocol', 'a2a'], cancel), 1);
          assert.match(cancel.err(), /task not found/);
          const get = recordingIo();
          const argv = ['tasks', 'get', url(), 'no-such-task', '--transport-task', '--protocol', 'a2a'];
          assert.equal(await main(argv, get), 1, get.err());
        });

        it('adcp call --task over A2A is a usage error (every A2A call is a task already)', async () => {
          const io = recordingIo();
          const argv = [
            'call',
            url(),
            'get_products',
            JSON.stringify(productsRequest('pets')),
            '--protocol',
            'a2a',
            '--task',
          ];
          assert.equal(await main(argv, io), 2);
        });
      } else {
        it('adcp call --task is refused before sending: the framework lists its tools with taskSupport forbidden', async () => {
          const io = recordingIo();
          const argv = [
            'call',
            url(),
            'get_products',
            JSON.stringify(productsRequest('pets')),
            '--protocol',
            'mcp',
            '--task',
          ];
          assert.equal(await main(argv, io), 2);
          assert.match(io.err(), /get_products does not take MCP Tasks \(its listing says taskSupport: forbidden\)/);
        });

        it('adcp tasks cancel of an MCP Task the seller does not have exits 1 (the framework has no MCP Tasks)', async () => {
          const io = recordingIo();
          assert.equal(await main(['tasks', 'cancel', url(), 'no-such-task', '--protocol', 'mcp'], io), 1);
          assert.match(io.err(), /refused: Task not found/);
        });
      }

      it('adcp discover lists the tools', async () => {
        const io = recordingIo();
        assert.equal(await main(['discover', url(), '--protocol', protocol, '--json'], io), 0, io.err());
        const out = JSON.parse(io.out()) as { protocol: string; tools: { name: string }[] };
        assert.equal(out.protocol, protocol);
        assert.ok(out.tools.some((t) => t.name === 'create_media_buy'));
      });

      it('adcp call get_products', async () => {
        const io = recordingIo();
        const argv = ['call', url(), 'get_products', JSON.stringify(productsRequest('pets')), '--protocol', protocol];
        assert.equal(await main([...argv, '--json'], io), 0, io.err());
        const out = JSON.parse(io.out()) as { status: string; data: { products: unknown[] } };
        assert.equal(out.status, 'completed');
        assert.equal(out.data.products.length, 2);
      });

      it('adcp call create_media_buy --wait prints the completed buy', async () => {
        const before = seller.mediaBuyIds().length;
        const io = recordingIo();
        const argv = ['call', url(), 'create_media_buy', BUY, '--protocol', protocol, '--wait', '--timeout', '30'];
        assert.equal(await main([...argv, '--json'], io), 0, io.err());
        const out = JSON.parse(io.out()) as { status: string; task_id?: string; data: { media_buy_id?: string } };
        assert.equal(out.status, 'completed');
        assert.match(out.task_id ?? '', /^task_/);
        assert.deepEqual(seller.mediaBuyIds().slice(before), [out.data.media_buy_id]);
      });

      it('adcp tasks get follows the AdCP task id of a submitted buy', async () => {
        const io = recordingIo();
        const argv = ['call', url(), 'create_media_buy', BUY, '--protocol', protocol, '--json'];
        assert.equal(await main(argv, io), 0, io.err());
        const submitted = JSON.parse(io.out()) as { status: string; task_id?: string };
        assert.equal(submitted.status, 'submitted');
        const taskId = submitted.task_id ?? '';
        assert.match(taskId, /^task_/);
        let out: { status: string; task_id?: string; data?: { media_buy_id?: string } } = { status: 'submitted' };
        for (let i = 0; i < 40 && out.status !== 'completed'; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
          const get = recordingIo();
          assert.equal(
            await main(['tasks', 'get', url(), taskId, '--protocol', protocol, '--json'], get),
            0,
            get.err(),
          );
          out = JSON.parse(get.out()) as typeof out;
          assert.ok(['submitted', 'working', 'completed'].includes(out.status), out.status);
        }
        assert.equal(out.status, 'completed');
        assert.equal(out.data?.media_buy_id, seller.mediaBuyIds().at(-1));
      });
    });
  }
});
