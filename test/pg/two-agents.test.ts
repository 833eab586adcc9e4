// Two agent instances (createAdcpServer) sharing one PostgreSQL task store, as behind a load
// balancer: a task started through one is read, polled and cancelled through the other, and
// stays invisible to another principal. Spoken over A2A v0.3 JSON-RPC (stateless HTTP; MCP
// sessions live in one instance and need sticky routing).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer, type ListeningAdcpServer, type AdcpServer } from '../../src/server/index.js';
import { PgTaskStore } from '../../src/store/pg-task-store.js';
import type { TaskStore } from '../../src/store/task-store.js';
import type { JsonObject } from '../../src/core/types.js';
import { dropTestSchemas, pgSkip, pgUrl, testSchema } from './pg-test-env.js';

type Rpc = { result?: JsonObject; error?: { code: number; message: string } };

describe('two agent instances sharing a PostgreSQL task store', { skip: pgSkip }, () => {
  const servers: AdcpServer[] = [];
  const stores: TaskStore[] = [];
  const listening: ListeningAdcpServer[] = [];
  let releaseBuy: () => void = () => undefined;
  const buyGate = new Promise<void>((resolve) => (releaseBuy = resolve));

  before(async () => {
    const schema = testSchema('agents');
    for (let i = 0; i < 2; i += 1) {
      const store = new PgTaskStore({ url: pgUrl as string, schema, sweepIntervalMs: 0 });
      stores.push(store);
      const server = createAdcpServer({
        validateRequests: false,
        name: `agent-${i}`,
        store,
        authenticate: (req) => /^Bearer (\w+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null,
        tools: [
          {
            name: 'build_report',
            description: 'Runs until cancelled (or 20 s).',
            taskSupport: 'optional',
            handler: (_args, context) =>
              new Promise((resolve) => {
                const timer = setTimeout(() => resolve({ report: 'late' }), 20_000);
                context.signal.addEventListener('abort', () => {
                  clearTimeout(timer);
                  resolve({ report: 'aborted' });
                });
              }),
          },
          {
            name: 'get_products',
            description: 'Answers at once.',
            handler: () => ({ products: [{ product_id: `p-from-agent-${i}` }] }),
          },
          {
            name: 'create_media_buy',
            description: 'Answers submitted; finishes when the test says so.',
            handler: (_args, context) =>
              context.submit(async () => {
                await buyGate;
                return { media_buy_id: 'mb-1', packages: [] };
              }),
          },
        ],
      });
      servers.push(server);
      listening.push(await server.listen({ port: 0 }));
    }
  });
  after(async () => {
    releaseBuy();
    for (const server of servers) await server.close();
    for (const store of stores) await store.close();
    await dropTestSchemas();
  });

  let nextId = 1;
  const rpc = async (instance: number, principal: string, method: string, params: JsonObject): Promise<Rpc> => {
    const response = await fetch(listening[instance]?.a2aUrl as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${principal}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    assert.equal(response.status, 200);
    return (await response.json()) as Rpc;
  };
  const send = (instance: number, principal: string, skill: string, input: JsonObject, blocking: boolean) =>
    rpc(instance, principal, 'message/send', {
      message: {
        kind: 'message',
        messageId: `m-${nextId}`,
        role: 'user',
        parts: [{ kind: 'data', data: { skill, input } }],
      },
      configuration: { blocking },
    });
  const stateOf = (answer: Rpc) => (answer.result?.status as JsonObject | undefined)?.state;
  /** The AdCP body of a finished A2A task: the last DataPart of the first artifact. */
  const bodyOf = (answer: Rpc): JsonObject => {
    const artifacts = answer.result?.artifacts as { parts: { kind: string; data?: JsonObject }[] }[] | undefined;
    const data = artifacts?.[0]?.parts.filter((p) => p.kind === 'data').at(-1)?.data;
    assert.ok(data !== undefined, `no DataPart in ${JSON.stringify(answer)}`);
    return data;
  };

  it('reads and cancels through instance B an A2A task started through instance A', async () => {
    const started = await send(0, 'alice', 'build_report', {}, false);
    assert.equal(stateOf(started), 'working');
    const id = started.result?.id as string;

    const seen = await rpc(1, 'alice', 'tasks/get', { id });
    assert.equal(seen.result?.id, id);
    assert.equal(stateOf(seen), 'working');

    assert.equal((await rpc(1, 'bob', 'tasks/get', { id })).error?.code, -32001);
    assert.equal((await rpc(1, 'bob', 'tasks/cancel', { id })).error?.code, -32001);
    assert.equal(stateOf(await rpc(0, 'alice', 'tasks/get', { id })), 'working', "bob's cancel changed nothing");

    const cancelled = await rpc(1, 'alice', 'tasks/cancel', { id });
    assert.equal(stateOf(cancelled), 'canceled');
    assert.equal(stateOf(await rpc(0, 'alice', 'tasks/get', { id })), 'canceled');
    assert.equal((await rpc(0, 'alice', 'tasks/cancel', { id })).error?.code, -32002, 'a second cancel is refused');
  });

  it('fetches through instance B the result of an A2A task that instance A ran to completion', async () => {
    // A non-blocking send is a durable task; blocking sends are answered at once and kept in memory.
    const started = await send(0, 'alice', 'get_products', { brief: 'coffee' }, false);
    const id = started.result?.id as string;
    let fetched: Rpc = started;
    for (let i = 0; i < 100 && stateOf(fetched) !== 'completed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      fetched = await rpc(1, 'alice', 'tasks/get', { id });
    }
    assert.equal(stateOf(fetched), 'completed', JSON.stringify(fetched));
    assert.deepEqual(bodyOf(fetched).products, [{ product_id: 'p-from-agent-0' }]);
    assert.equal((await rpc(1, 'bob', 'tasks/get', { id })).error?.code, -32001);
  });

  it('polls through instance B an AdCP async task submitted through instance A, until its result', async () => {
    const submitted = bodyOf(
      await send(0, 'alice', 'create_media_buy', { buyer_ref: 'b1', idempotency_key: crypto.randomUUID() }, true),
    );
    assert.equal(submitted.status, 'submitted');
    const taskId = submitted.task_id as string;
    assert.equal(typeof taskId, 'string');

    const pending = bodyOf(await send(1, 'alice', 'get_task_status', { task_id: taskId }, true));
    assert.equal(pending.task_id, taskId);
    assert.ok(['submitted', 'working'].includes(pending.status as string), String(pending.status));

    const foreign = bodyOf(await send(1, 'bob', 'get_task_status', { task_id: taskId }, true));
    assert.equal((foreign.adcp_error as JsonObject | undefined)?.code, 'REFERENCE_NOT_FOUND');

    releaseBuy();
    let final: JsonObject = pending;
    for (let i = 0; i < 100 && final.status !== 'completed'; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      final = bodyOf(await send(1, 'alice', 'get_task_status', { task_id: taskId, include_result: true }, true));
    }
    assert.equal(final.status, 'completed');
    assert.equal((final.result as JsonObject | undefined)?.media_buy_id, 'mb-1');
  });
});
