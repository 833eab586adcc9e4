import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { AdcpToolError } from '../../src/server/tools/tool-error.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { gate, testTools } from './fixtures.js';
import { modernRpc } from './modern-rpc.js';

describe('createAdcpServer on the MCP 2026-07-28 era', () => {
  let server: ListeningAdcpServer;
  let slow = gate();
  before(async () => {
    server = await createAdcpServer({
      validateRequests: false,
      taskAfterMs: 100,
      store: new MemoryTaskStore({ policy: { pollIntervalMs: 50 } }),
      tools: [
        ...testTools().filter((tool) => tool.name !== 'sync_creatives'),
        {
          name: 'sync_creatives',
          mutating: false, // about tasks, not idempotency keys
          description: 'Task-capable; waits for the gate of the moment.',
          handler: async (_args, context) => {
            await context.working('Syncing');
            await slow.promise;
            return { creatives: [] };
          },
        },
        {
          name: 'build_creative',
          mutating: false, // about tasks, not idempotency keys
          description: 'Always a task; fails with an AdCP error.',
          taskSupport: 'required',
          handler: () => {
            throw new AdcpToolError('CREATIVE_REJECTED', 'No creative today', { recovery: 'correctable' });
          },
        },
      ],
    }).listen();
  });
  after(() => server.close());

  it('answers server/discover with the modern revision, tools and the Tasks extension, statelessly', async () => {
    const answer = await modernRpc(server.mcpUrl, 'server/discover');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('mcp-session-id'), null);
    assert.deepEqual(answer.body.result?.supportedVersions, ['2026-07-28']);
    assert.deepEqual(answer.body.result?.capabilities, {
      tools: { listChanged: false },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
  });

  it('lists tools with their input schemas and no 2025 execution field (the SDK drops it on this era)', async () => {
    const answer = await modernRpc(server.mcpUrl, 'tools/list');
    const tools = answer.body.result?.tools as { name: string; inputSchema: unknown; execution?: unknown }[];
    const products = tools.find((tool) => tool.name === 'get_products');
    // An AdCP tool without a seller-written schema lists its release's discovery schema.
    const input = products?.inputSchema as { type?: unknown; properties?: Record<string, unknown> } | undefined;
    assert.equal(input?.type, 'object');
    assert.ok(input?.properties !== undefined && 'buying_mode' in input.properties);
    assert.equal(products?.execution, undefined);
    assert.equal(answer.body.result?.resultType, 'complete');
  });

  it('answers a quick task-capable call directly, with resultType complete', async () => {
    slow.open();
    const answer = await modernRpc(server.mcpUrl, 'tools/call', { name: 'sync_creatives', arguments: {} });
    assert.equal(answer.body.result?.resultType, 'complete');
    assert.deepEqual((answer.body.result?.structuredContent as { creatives?: unknown } | undefined)?.creatives, []);
  });

  it('turns a call still running after taskAfterMs into a task, then completes it on tasks/get', async () => {
    slow = gate();
    const answer = await modernRpc(server.mcpUrl, 'tools/call', { name: 'sync_creatives', arguments: {} });
    const created = answer.body.result as { resultType: string; taskId: string; status: string; ttlMs: number };
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(typeof created.ttlMs, 'number');
    const working = await modernRpc(server.mcpUrl, 'tasks/get', { taskId: created.taskId });
    assert.equal(working.body.result?.status, 'working');
    slow.open();
    let task: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && task?.status !== 'completed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = (await modernRpc(server.mcpUrl, 'tasks/get', { taskId: created.taskId })).body.result;
    }
    assert.equal(task?.status, 'completed');
    assert.equal(task?.resultType, 'complete');
    const result = task?.result as { resultType: string; structuredContent: { status: string } };
    assert.equal(result.resultType, 'complete');
    assert.equal(result.structuredContent.status, 'completed');
  });

  it('never answers with a task to a client that did not declare the extension', async () => {
    slow = gate();
    setTimeout(() => slow.open(), 400).unref();
    const answer = await modernRpc(
      server.mcpUrl,
      'tools/call',
      { name: 'sync_creatives', arguments: {} },
      { tasks: false },
    );
    assert.equal(answer.body.result?.resultType, 'complete');
    assert.equal(answer.body.result?.taskId, undefined);
  });

  it('refuses a task-only tool without the extension with -32021 naming it', async () => {
    const answer = await modernRpc(
      server.mcpUrl,
      'tools/call',
      { name: 'build_creative', arguments: {} },
      { tasks: false },
    );
    assert.equal(answer.body.error?.code, -32021);
    assert.deepEqual(answer.body.error?.data, {
      requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    });
  });

  it('reports an AdCP error answer inside a task as completed with isError (failed is for JSON-RPC errors)', async () => {
    const answer = await modernRpc(server.mcpUrl, 'tools/call', { name: 'build_creative', arguments: {} });
    const taskId = answer.body.result?.taskId as string;
    let task: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && task?.status !== 'completed'; i++) {
      task = (await modernRpc(server.mcpUrl, 'tasks/get', { taskId })).body.result;
      if (task?.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = task?.result as { isError?: boolean; structuredContent: { adcp_error: { code: string } } };
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.adcp_error.code, 'CREATIVE_REJECTED');
  });

  it('cancels a running task (acknowledged, then cancelled), and acknowledges a cancel of an ended one', async () => {
    slow = gate();
    const answer = await modernRpc(server.mcpUrl, 'tools/call', { name: 'sync_creatives', arguments: {} });
    const taskId = answer.body.result?.taskId as string;
    const cancel = await modernRpc(server.mcpUrl, 'tasks/cancel', { taskId });
    assert.deepEqual(cancel.body.result?.resultType, 'complete');
    assert.equal((await modernRpc(server.mcpUrl, 'tasks/get', { taskId })).body.result?.status, 'cancelled');
    const again = await modernRpc(server.mcpUrl, 'tasks/cancel', { taskId });
    assert.equal(again.body.result?.resultType, 'complete');
    slow.open();
  });

  it('answers tasks/get, tasks/update and tasks/cancel for an unknown task with -32602', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await modernRpc(server.mcpUrl, method, { taskId: 'no-such-task', inputResponses: {} });
      assert.equal(answer.body.error?.code, -32602, method);
    }
  });

  it('refuses headers that disagree with the body (-32020)', async () => {
    const answer = await modernRpc(
      server.mcpUrl,
      'tools/call',
      { name: 'get_products', arguments: {} },
      { mcpName: 'other' },
    );
    assert.equal(answer.body.error?.code, -32020);
  });

  it('answers an unknown tool with -32602', async () => {
    const answer = await modernRpc(server.mcpUrl, 'tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(answer.body.error?.code, -32602);
  });

  it('keeps serving the 2025 era (initialize opens a session) on the same endpoint', async () => {
    const response = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    assert.equal(response.status, 200);
    assert.ok(response.headers.get('mcp-session-id'));
    await response.body?.cancel();
  });
});
