// test-timeout-ms: 300000
// Cancelling across a seller fleet: three `adcp serve --store-url postgres://...` processes behind
// the round-robin proxy. A task is created through one instance and cancelled through another
// (MCP 2026-07-28 Tasks with the official ext-tasks requester, MCP 2025-era experimental Tasks
// with the SDK 1.x client, A2A with @a2a-js/sdk): every instance then reads it cancelled, and the
// work on the instance running it is aborted (its handler's AbortSignal fires: the seller's test
// hook says so on that process's stderr). An A2A resubscribe served by an instance that does not
// run the task follows it to its end. The reference seller has no AdCP-level cancel to test.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CancelTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';
import { ClientFactory } from 'a2a-sdk-v03/client';
import { rawModernDispatch } from '../interop/helpers/raw-modern-dispatch.js';
import type { ServeProcess } from '../interop/helpers/spawn-serve.js';
import { pgSkip } from '../pg/pg-test-env.js';
import type { RoundRobinProxy } from './round-robin-proxy.js';
import { startSellerFleet, type SellerFleet } from './seller-fleet.js';

type Json = { [key: string]: unknown };
const INSTANCES = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOOK = /adcp test hook: get_products aborted \((cancell?ed)\)/g;

describe('cancelling a task through another instance of a seller fleet', { skip: pgSkip }, () => {
  let fleet: SellerFleet;
  let proxy: RoundRobinProxy;
  let instances: ServeProcess[];
  let stderr: string[];
  const closers: { close(): Promise<unknown> }[] = [];

  before(async () => {
    fleet = await startSellerFleet({ prefix: 'fleetcancel', count: INSTANCES, env: { ADCP_SELLER_TEST_HOOKS: '1' } });
    ({ proxy, instances, stderr } = fleet);
  });
  after(async () => {
    for (const closer of closers) await closer.close().catch(() => undefined);
    await fleet?.close();
  });

  const aborts = () => stderr.map((text) => [...text.matchAll(HOOK)].length);
  /** The next request through the proxy goes to this instance (it takes each in turn). */
  const nextInstance = () => proxy.served.length % INSTANCES;
  /** Sends `ping` through the proxy until the next request would reach none of `avoid`. */
  const steerAway = async (avoid: number[], ping: () => Promise<unknown>) => {
    for (let i = 0; i < INSTANCES && avoid.includes(nextInstance()); i += 1) await ping();
    assert.ok(!avoid.includes(nextInstance()), 'the next request goes to another instance');
  };
  /** Waits (at most 20 s) until the hook reports one more abort on `owner`, and on no other instance. */
  const assertAbortedOn = async (owner: number, before: number[]) => {
    for (let i = 0; i < 200 && (aborts()[owner] ?? 0) <= (before[owner] ?? 0); i += 1) await sleep(100);
    const now = aborts();
    assert.deepEqual(
      now.map((n, i) => n - (before[i] ?? 0)),
      before.map((_, i) => (i === owner ? 1 : 0)),
      `the work was aborted on instance ${owner} only:\n${stderr.join('\n---\n')}`,
    );
  };
  const heldBrief = () => `[hold-until-aborted] ${randomUUID()}`;

  it('MCP 2026-07-28: tasks/cancel through another instance aborts the work where it runs', async () => {
    const url = `${proxy.url}/mcp`;
    const client = new Client(
      { name: 'fleet-cancel', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    closers.push(client);
    const session = createTaskSessionFromClient(client, {
      endpointId: 'fleet-cancel',
      rawDispatch: rawModernDispatch(url),
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'fleet-cancel', version: '1.0.0' },
        clientCapabilities: {},
      },
    });
    closers.push(session);
    const before = aborts();
    // The seller answers a call that outlasts `taskAfterMs` (2 s) with a task.
    const execution = await session.callTool('get_products', { buying_mode: 'brief', brief: heldBrief() });
    assert.equal(execution.kind, 'task');
    const owner = proxy.served.at(-1) as number;
    const taskId = execution.kind === 'task' ? String(execution.handle.taskId) : '';
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'fleet-cancel', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    const get = (via: string) => rawModernDispatch(via)({ method: 'tasks/get', params: { taskId, _meta: envelope } });
    await steerAway([owner], () => get(url));
    await execution.cancel();
    assert.notEqual(proxy.served.at(-1), owner, 'cancelled through another instance');
    await assertAbortedOn(owner, before);
    for (const instance of instances) {
      const answer = (await get(instance.mcp)) as { kind: string; result?: Json };
      assert.equal(answer.result?.status, 'cancelled', `${instance.mcp}: ${JSON.stringify(answer)}`);
    }
  });

  it('MCP 2025 era: tasks/cancel of the SDK 1.x client through another instance aborts the work', async () => {
    const client = new ClientV1({ name: 'fleet-cancel', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new TransportV1(new URL(`${proxy.url}/mcp`)));
    closers.push(client);
    await sleep(500); // the client's GET after initialize (405 when stateless) has been answered
    const before = aborts();
    const created = (await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'get_products',
          arguments: { buying_mode: 'brief', brief: heldBrief() },
          task: { ttl: 120_000 },
        },
      },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const owner = proxy.served.at(-1) as number;
    const taskId = created.task.taskId;
    const get = (on: ClientV1) => on.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    await steerAway([owner], () => get(client));
    await client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema);
    assert.notEqual(proxy.served.at(-1), owner, 'cancelled through another instance');
    await assertAbortedOn(owner, before);
    for (const instance of instances) {
      const direct = new ClientV1({ name: 'fleet-cancel', version: '1.0.0' }, { capabilities: {} });
      await direct.connect(new TransportV1(new URL(instance.mcp)));
      closers.push(direct);
      assert.equal((await get(direct)).status, 'cancelled', instance.mcp);
    }
  });

  /** A non-blocking A2A get_products held on the instance that serves it: the task and that instance. */
  const sendHeld = async (client: Awaited<ReturnType<ClientFactory['createFromUrl']>>) => {
    const sent = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'get_products', input: { buying_mode: 'brief', brief: heldBrief() } } }],
      },
      configuration: { blocking: false },
    })) as unknown as Json;
    assert.equal(sent.kind, 'task');
    assert.equal((sent.status as Json).state, 'working');
    return { taskId: String(sent.id), owner: proxy.served.at(-1) as number };
  };
  /** The task as one instance reads it (JSON-RPC straight to it: the cards name the proxy). */
  const a2aTaskOn = async (instance: ServeProcess, taskId: string) => {
    const card = (await (await fetch(`${proxy.url}/.well-known/agent-card.json`)).json()) as Json & { url: string };
    const client = await new ClientFactory().createFromAgentCard({
      ...card,
      url: card.url.replace(proxy.url, instance.url),
    } as never);
    return (await client.getTask({ id: taskId })) as unknown as Json;
  };

  it('A2A: tasks/cancel through another instance aborts the work, and every instance reads it canceled', async () => {
    const client = await new ClientFactory().createFromUrl(proxy.url);
    const before = aborts();
    const { taskId, owner } = await sendHeld(client);
    await steerAway([owner], () => client.getTask({ id: taskId }));
    const canceled = (await client.cancelTask({ id: taskId })) as unknown as Json;
    assert.notEqual(proxy.served.at(-1), owner, 'cancelled through another instance');
    assert.equal((canceled.status as Json).state, 'canceled');
    await assertAbortedOn(owner, before);
    for (const instance of instances) {
      assert.equal(((await a2aTaskOn(instance, taskId)).status as Json).state, 'canceled', instance.url);
    }
  });

  it('A2A: a resubscribe served by an instance that does not run the task follows it to its end', async () => {
    const client = await new ClientFactory().createFromUrl(proxy.url);
    const before = aborts();
    const { taskId, owner } = await sendHeld(client);
    await steerAway([owner], () => client.getTask({ id: taskId }));
    const follower = nextInstance();
    const states: string[] = [];
    const following = (async () => {
      for await (const event of client.resubscribeTask({ id: taskId })) {
        const e = event as unknown as Json;
        const state = e.kind === 'task' || e.kind === 'status-update' ? (e.status as Json).state : undefined;
        if (typeof state === 'string') states.push(state);
      }
    })();
    for (let i = 0; i < 100 && states.length === 0; i += 1) await sleep(50);
    assert.deepEqual(states, ['working'], 'the resubscribe stream opened with the working task');
    // Cancelled through the third instance: neither the one running it nor the one streaming.
    await steerAway([owner, follower], () => client.getTask({ id: taskId }));
    await client.cancelTask({ id: taskId });
    await assertAbortedOn(owner, before);
    await following;
    assert.deepEqual(states, ['working', 'canceled'], 'the stream carried the end of the task');
  });
});
