// test-timeout-ms: 600000
// Three `adcp serve --store-url postgres://...` processes behind a round-robin proxy written for
// the test (loopback, each request to the next instance, no stickiness): MCP Tasks of a 2025-era
// client, A2A tasks and AdCP tasks are read and finished through other instances than the one
// that created them, and one idempotency key sent to all three at once runs once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ClientFactory } from 'a2a-sdk-v03/client';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { ServeProcess } from '../interop/helpers/spawn-serve.js';
import { pgSkip } from '../pg/pg-test-env.js';
import type { RoundRobinProxy } from './round-robin-proxy.js';
import { startSellerFleet, type SellerFleet } from './seller-fleet.js';

type Json = { [key: string]: unknown };
const INSTANCES = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a seller fleet: three adcp serve on one PostgreSQL behind a round-robin proxy', { skip: pgSkip }, () => {
  let fleet: SellerFleet;
  let proxy: RoundRobinProxy;
  let instances: ServeProcess[];
  const closers: { close(): Promise<unknown> }[] = [];

  before(async () => {
    fleet = await startSellerFleet({ prefix: 'sellerfleet', count: INSTANCES });
    ({ proxy, instances } = fleet);
  });
  after(async () => {
    for (const closer of closers) await closer.close().catch(() => undefined);
    await fleet?.close();
  });

  /** The instances that served the requests from `from` on. */
  const servedSince = (from: number) => new Set(proxy.served.slice(from));

  it('runs a task-augmented create_media_buy of the official MCP SDK client (2025 era) across instances', async () => {
    const client = new Client({ name: 'fleet-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
    closers.push(client);
    const start = proxy.served.length;
    const created = (await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'create_media_buy',
          arguments: mediaBuyRequest([packageRequest('display_ron', 100)], { idempotency_key: randomUUID() }),
          task: { ttl: 120_000 },
        },
      },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const taskId = created.task.taskId;
    const createdOn = proxy.served.at(-1);
    const pollsFrom = proxy.served.length;
    let status = 'working';
    for (let i = 0; i < 600 && status !== 'completed' && status !== 'failed'; i += 1) {
      status = (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
      if (status !== 'completed') await sleep(50);
    }
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    assert.equal(status, 'completed', JSON.stringify(result));
    // The SDK's own task wrapper answered `submitted`; the task's result is the AdCP answer.
    const body = result.structuredContent as Json;
    assert.ok(['submitted', 'completed'].includes(String(body.status)), JSON.stringify(body));
    const readers = servedSince(pollsFrom);
    assert.ok(
      [...readers].some((i) => i !== createdOn),
      `tasks/get and tasks/result reached another instance than ${createdOn}`,
    );
    assert.equal(servedSince(start).size, INSTANCES);
  });

  it('reads back through another instance an A2A task sent non-blocking (@a2a-js/sdk)', async () => {
    const client = await new ClientFactory().createFromUrl(proxy.url);
    const sent = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [
          {
            kind: 'data',
            data: {
              skill: 'create_media_buy',
              input: mediaBuyRequest([packageRequest('display_ron', 100)], { idempotency_key: randomUUID() }),
            },
          },
        ],
      },
      configuration: { blocking: false },
    })) as unknown as Json;
    assert.equal(sent.kind, 'task');
    const sentOn = proxy.served.at(-1);
    const readFrom = proxy.served.length;
    let task: Json = sent;
    for (let i = 0; i < 600 && (task.status as Json).state !== 'completed'; i += 1) {
      await sleep(50);
      task = (await client.getTask({ id: String(sent.id) })) as unknown as Json;
      if ((task.status as Json).state === 'failed') break;
    }
    assert.equal((task.status as Json).state, 'completed', JSON.stringify(task.status));
    assert.ok(
      [...servedSince(readFrom)].some((i) => i !== sentOn),
      'read through another instance',
    );
  });

  it('follows an AdCP task to its end with AdcpClient.waitFor, each poll to the next instance', async () => {
    const client = new AdcpClient({ url: `${proxy.url}/mcp`, protocol: 'mcp', timeoutMs: 30_000 });
    closers.push(client);
    const submitted = await client.call(
      'create_media_buy',
      mediaBuyRequest([packageRequest('olv_pets', 500)], { buyer_ref: 'fleet-wait' }),
    );
    assert.equal(submitted.status, 'submitted');
    const from = proxy.served.length;
    const final = await client.waitFor(submitted, { timeoutMs: 60_000, pollIntervalMs: 100 });
    assert.equal(final.status, 'completed');
    assert.ok(servedSince(from).size > 1, 'polls reached more than one instance');
  });

  it('creates one media buy when one idempotency key reaches all three instances at once', async () => {
    const key = randomUUID();
    const args = mediaBuyRequest([packageRequest('display_ron', 100)], {
      idempotency_key: key,
      buyer_ref: 'fleet-once',
    });
    const clients = instances.map(
      (instance) => new AdcpClient({ url: instance.mcp, protocol: 'mcp', timeoutMs: 30_000 }),
    );
    closers.push(...clients);
    const answers = await Promise.all(clients.map((client) => client.call('create_media_buy', args)));
    const taskIds = new Set(answers.map((a) => JSON.stringify(a.data?.task_id ?? a.taskId)));
    assert.match([...taskIds][0] ?? '', /^"/, 'the answers name their task');
    assert.equal(taskIds.size, 1, `one task for one key: ${[...taskIds].join(', ')}`);
    assert.equal(answers.filter((a) => a.data?.replayed === true).length, INSTANCES - 1);
  });
});
