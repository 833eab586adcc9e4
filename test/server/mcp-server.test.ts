import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { gate, testTools } from './fixtures.js';

type Json = { [key: string]: unknown };

describe('createAdcpServer over MCP (official SDK client)', () => {
  const slow = gate();
  const server = createAdcpServer({
    validateRequests: false,
    tools: testTools({ slow: slow.promise }),
    store: new MemoryTaskStore({ policy: { pollIntervalMs: 50, maxTtlMs: 120_000 } }),
  });
  let listening: ListeningAdcpServer;
  const clients: Client[] = [];

  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.mcpUrl)));
    clients.push(client);
    return client;
  };

  before(async () => {
    listening = await server.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    slow.open();
    for (const client of clients) await client.close();
    await server.close();
  });

  it('declares the tasks capability with list, cancel and tools/call', async () => {
    const client = await connect();
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it("sets each tool's execution.taskSupport from the guide's table", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.equal(support.get_products, 'optional');
    assert.equal(support.create_media_buy, 'optional');
    assert.equal(support.get_adcp_capabilities, 'forbidden');
    assert.equal(support.get_task_status, 'forbidden');
  });

  it('answers with flat structuredContent and one terse text item', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'get_products', arguments: { brief: 'ctv' } });
    const structured = result.structuredContent as Json;
    assert.equal(result.isError, undefined);
    assert.equal(structured.status, 'completed');
    assert.deepEqual(structured.products, [{ product_id: 'p1', name: 'CTV', brief_seen: 'ctv' }]);
    assert.equal(structured.payload, undefined);
    assert.deepEqual(result.content, [{ type: 'text', text: 'Found 1 product' }]);
  });

  it('accepts every schema-admitted envelope field and echoes context and adcp_version', async () => {
    const client = await connect();
    const context = { ui: 'dashboard', trace: { id: 't-1' } };
    const result = await client.callTool({
      name: 'get_products',
      arguments: {
        brief: 'ctv',
        idempotency_key: '550e8400-e29b-41d4-a716-446655442072',
        context,
        context_id: 'ctx-ignored',
        adcp_version: '3.1',
        adcp_major_version: 3,
        push_notification_config: { url: 'http://127.0.0.1:9/hook', operation_id: 'op-1' },
        governance_context: { plan_id: 'x' },
        ext: { vendor: { a: 1 } },
      },
    });
    const structured = result.structuredContent as Json;
    assert.equal(result.isError, undefined);
    assert.deepEqual(structured.context, context);
    assert.equal(structured.adcp_version, '3.1');
    assert.equal(structured.status, 'completed');
  });

  it('answers an AdCP error with isError, adcp_error in structuredContent and a JSON text item', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'fail_rate_limited', arguments: { context: { n: 1 } } });
    const error = { code: 'RATE_LIMITED', message: 'Request rate exceeded', recovery: 'transient', retry_after: 3 };
    assert.equal(result.isError, true);
    assert.deepEqual((result.structuredContent as Json).adcp_error, error);
    assert.deepEqual((result.structuredContent as Json).context, { n: 1 });
    const content = result.content as { type: string; text: string }[];
    assert.deepEqual(JSON.parse(content[0]?.text ?? ''), { adcp_error: error });
    assert.equal(content[1]?.text, 'fail_rate_limited failed: RATE_LIMITED. Retry in 3s.');
  });

  it('hides the message of an unexpected exception', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'explode', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(JSON.stringify(result).includes('postgres://'), false);
    assert.equal(((result.structuredContent as Json).adcp_error as Json).code, 'SERVICE_UNAVAILABLE');
  });

  it('runs a task-augmented call through callToolStream to the final result', async () => {
    const client = await connect();
    const stream = client.experimental.tasks.callToolStream(
      { name: 'get_products', arguments: { brief: 'b' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const kinds: string[] = [];
    let final: Json | undefined;
    for await (const message of stream) {
      kinds.push(message.type);
      if (message.type === 'result') final = message.result;
      if (message.type === 'error') throw message.error;
      if (kinds.length > 100) break;
    }
    assert.equal(kinds[0], 'taskCreated');
    assert.equal((final!.structuredContent as Json).status, 'completed');
    assert.deepEqual(
      ((final!._meta as Json)['io.modelcontextprotocol/related-task'] as Json).taskId !== undefined,
      true,
    );
  });

  it('creates a task with clamped TTL and a poll interval', async () => {
    const client = await connect();
    const created = (await client.request(
      { method: 'tools/call', params: { name: 'get_products', arguments: {}, task: { ttl: 999_999_999 } } },
      (await import('@modelcontextprotocol/sdk/experimental/tasks')).CreateTaskResultSchema,
    )) as { task: Json };
    assert.equal(created.task.ttl, 120_000);
    assert.equal(created.task.pollInterval, 50);
    assert.equal(created.task.status, 'working');
  });

  it('accepts the task: {} parameter on tasks/get and tasks/result', async () => {
    const client = await connect();
    const tasks = await import('@modelcontextprotocol/sdk/experimental/tasks');
    const { GetTaskResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const created = (await client.request(
      { method: 'tools/call', params: { name: 'get_products', arguments: {}, task: { ttl: 60_000 } } },
      tasks.CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const taskId = created.task.taskId;
    let status = '';
    for (let i = 0; i < 100 && status !== 'completed'; i += 1) {
      const got = await client.request({ method: 'tasks/get', params: { taskId, task: {} } }, GetTaskResultSchema);
      status = got.status;
    }
    const result = await client.request({ method: 'tasks/result', params: { taskId, task: {} } }, CallToolResultSchema);
    assert.equal(status, 'completed');
    assert.equal((result.structuredContent as Json).status, 'completed');
  });

  it('refuses task augmentation on a forbidden tool', async () => {
    const client = await connect();
    await assert.rejects(
      client.callTool({ name: 'get_adcp_capabilities', arguments: {}, task: { ttl: 1000 } }),
      (error: Error & { code?: number }) => error.code === -32601,
    );
  });

  it('lets another session of the same caller read, list and cancel the task (tasks belong to the principal)', async () => {
    const owner = await connect();
    const other = await connect();
    const stream = owner.experimental.tasks.callToolStream(
      { name: 'sync_creatives', arguments: {} },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    const first = await stream.next();
    assert.equal(first.value?.type, 'taskCreated');
    const taskId = first.value?.type === 'taskCreated' ? first.value.task.taskId : '';
    assert.equal((await other.experimental.tasks.getTask(taskId)).status, 'working');
    const listed = await other.experimental.tasks.listTasks();
    assert.equal(
      listed.tasks.some((t) => t.taskId === taskId),
      true,
    );
    const cancelled = await other.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await owner.experimental.tasks.getTask(taskId)).status, 'cancelled');
    await stream.return(undefined);
  });

  it('serves AdCP async: submitted, then get_task_status reaches completed with the result', async () => {
    const client = await connect();
    const submitted = await client.callTool({
      name: 'create_media_buy',
      arguments: { context: { c: 1 }, idempotency_key: crypto.randomUUID() },
    });
    const body = submitted.structuredContent as Json;
    assert.equal(body.status, 'submitted');
    assert.equal(typeof body.task_id, 'string');
    let status: Json = {};
    for (let i = 0; i < 100; i += 1) {
      const polled = await client.callTool({
        name: 'get_task_status',
        arguments: { task_id: body.task_id, include_result: true },
      });
      status = polled.structuredContent as Json;
      if (status.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status.status, 'completed');
    assert.equal(status.task_type, 'create_media_buy');
    assert.equal((status.result as Json).media_buy_id, 'mb_1');
    assert.deepEqual((status.result as Json).context, { c: 1 });
  });

  it('answers the legacy tasks/get tool like get_task_status', async () => {
    const client = await connect();
    const submitted = await client.callTool({
      name: 'create_media_buy',
      arguments: { idempotency_key: crypto.randomUUID() },
    });
    const taskId = (submitted.structuredContent as Json).task_id;
    const polled = await client.callTool({ name: 'tasks/get', arguments: { task_id: taskId } });
    assert.equal((polled.structuredContent as Json).task_id, taskId);
  });

  it('answers an unknown task_id with REFERENCE_NOT_FOUND', async () => {
    const client = await connect();
    const polled = await client.callTool({ name: 'get_task_status', arguments: { task_id: 'nope' } });
    assert.equal(polled.isError, true);
    assert.equal(((polled.structuredContent as Json).adcp_error as Json).code, 'REFERENCE_NOT_FOUND');
  });
});
