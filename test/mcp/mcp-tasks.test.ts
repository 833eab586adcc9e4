import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpTransport } from '../../src/mcp/index.js';
import { mapMcpTaskStatus, isTerminalMcpTaskStatus } from '../../src/mcp/map-task-status.js';
import { pollDelay } from '../../src/mcp/task-poll.js';
import type { AdcpTransport, ProgressEvent } from '../../src/transport/transport.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import {
  adcpErrorAnswer,
  startMcpTestServer,
  withMcpServer,
  type TestServer,
  type TestTool,
} from './helpers/mcp-test-server.js';

const MAX = 4 * 1024 * 1024;

const tools: TestTool[] = [
  {
    name: 'get_products',
    taskSupport: 'optional',
    taskPolls: 2,
    handler: () => ({ content: [], structuredContent: { status: 'completed', products: [{ product_id: 'p1' }] } }),
  },
  {
    name: 'create_media_buy',
    taskSupport: 'optional',
    handler: () => ({
      content: [],
      structuredContent: { status: 'submitted', task_id: 'adcp-task-9', message: 'queued' },
    }),
  },
  {
    name: 'sync_creatives',
    taskSupport: 'required',
    taskPolls: 1,
    handler: () => ({ content: [], structuredContent: { creatives: [] } }),
  },
  {
    name: 'failing',
    taskSupport: 'optional',
    handler: () => adcpErrorAnswer({ code: 'BUDGET_TOO_LOW', recovery: 'correctable' }),
  },
  {
    name: 'slow',
    taskSupport: 'optional',
    taskPolls: 1_000_000,
    handler: () => ({ content: [], structuredContent: {} }),
  },
];

describe('McpTransport with MCP Tasks', () => {
  let server: TestServer;
  let transport: AdcpTransport;
  before(async () => {
    server = await startMcpTestServer({ tools, tasks: true, pollInterval: 50 });
    transport = createMcpTransport({ url: server.url, maxBytes: MAX });
  });
  after(async () => {
    await transport.close();
    await server.close();
  });

  it('polls tasks/get until completed, then reads tasks/result', async () => {
    const events: ProgressEvent[] = [];
    const result = await transport.callTool(
      'get_products',
      {},
      { maxBytes: MAX, task: { ttl: 60_000 }, onProgress: (e) => events.push(e) },
    );
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.data?.['products'], [{ product_id: 'p1' }]);
    assert.equal(typeof result.transportTaskId, 'string');
    const methods = server.received.map((m) => m['method']);
    assert.ok(methods.includes('tasks/get'));
    assert.ok(methods.includes('tasks/result'));
    assert.equal(events.at(-1)?.status, 'completed');
  });

  it('sends params.task with the requested ttl', async () => {
    await transport.callTool('get_products', {}, { maxBytes: MAX, task: { ttl: 12_345 } });
    const call = server.received.filter((m) => m['method'] === 'tools/call').at(-1);
    assert.deepEqual((call!['params'] as { task?: unknown }).task, { ttl: 12_345 });
  });

  it('keeps the AdCP submitted status carried by a completed MCP Task', async () => {
    const result = await transport.callTool('create_media_buy', {}, { maxBytes: MAX, task: { ttl: 60_000 } });
    assert.equal(result.status, 'submitted');
    assert.equal(result.taskId, 'adcp-task-9');
  });

  it('augments a tool whose taskSupport is required without being asked', async () => {
    const result = await transport.callTool('sync_creatives', {}, { maxBytes: MAX });
    assert.equal(result.status, 'completed');
    assert.equal(typeof result.transportTaskId, 'string');
  });

  it('calls an optional tool plainly when no task is asked for', async () => {
    const before = server.received.length;
    const result = await transport.callTool('create_media_buy', {}, { maxBytes: MAX });
    assert.equal(result.status, 'submitted');
    const call = server.received.slice(before).find((m) => m['method'] === 'tools/call');
    assert.equal((call!['params'] as { task?: unknown }).task, undefined);
  });

  it('returns a failed MCP Task with its adcp_error', async () => {
    const result = await transport.callTool('failing', {}, { maxBytes: MAX, task: {} });
    assert.ok(result.status === 'failed');
    assert.equal(result.error.code, 'BUDGET_TOO_LOW');
  });

  it('sends tasks/cancel when the call is aborted while polling', async () => {
    const controller = new AbortController();
    const promise = transport.callTool(
      'slow',
      {},
      {
        maxBytes: MAX,
        task: {},
        signal: controller.signal,
        onProgress: (e) => {
          if (e.status === 'working') controller.abort();
        },
      },
    );
    await assert.rejects(promise, (error: unknown) => error instanceof AdcpWireError && error.code === 'aborted');
    assert.ok(server.received.some((m) => m['method'] === 'tasks/cancel'));
  });

  it('reads a cancelled MCP Task back as canceled with getTask', async () => {
    const controller = new AbortController();
    let taskId = '';
    const promise = transport.callTool(
      'slow',
      {},
      {
        maxBytes: MAX,
        task: {},
        signal: controller.signal,
        onProgress: (e) => {
          taskId = e.taskId ?? taskId;
          if (e.status === 'working') controller.abort();
        },
      },
    );
    await assert.rejects(promise);
    const state = await transport.getTask?.(taskId, { maxBytes: MAX });
    assert.equal(state?.status, 'canceled');
    assert.equal(state?.transportTaskId, taskId);
  });

  it('cancels a running MCP Task with cancelTask', async () => {
    let taskId = '';
    const controller = new AbortController();
    const running = transport.callTool(
      'slow',
      {},
      {
        maxBytes: MAX,
        task: {},
        signal: controller.signal,
        onProgress: (e) => {
          taskId = e.taskId ?? taskId;
        },
      },
    );
    for (let i = 0; i < 200 && taskId === ''; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const canceled = await transport.cancelTask?.(taskId, { maxBytes: MAX });
    assert.equal(canceled?.status, 'canceled');
    const settled = await running;
    assert.equal(settled.status, 'canceled');
  });
});

describe('mapMcpTaskStatus', () => {
  it('maps the MCP states to AdCP statuses per the guide', () => {
    assert.deepEqual(['working', 'input_required', 'completed', 'failed', 'cancelled', 'bogus'].map(mapMcpTaskStatus), [
      'working',
      'input-required',
      'completed',
      'failed',
      'canceled',
      null,
    ]);
  });

  it('treats completed, failed and cancelled as terminal only', () => {
    assert.deepEqual(['working', 'input_required', 'completed', 'failed', 'cancelled'].map(isTerminalMcpTaskStatus), [
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});

describe('pollDelay', () => {
  it('honours the server pollInterval within bounds', () => {
    assert.deepEqual(
      [pollDelay(250), pollDelay(1), pollDelay(1e9), pollDelay(Number.NaN), pollDelay('5')],
      [250, 50, 60_000, 1000, 1000],
    );
  });
});

describe('followMcpTask', () => {
  it('waits the server pollInterval between tasks/get polls', async () => {
    const { McpSession } = await import('../../src/mcp/legacy/mcp-session.js');
    const { followMcpTask } = await import('../../src/mcp/legacy/follow-mcp-task.js');
    const { CreateTaskResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { sendRequest } = await import('../../src/mcp/legacy/send-request.js');
    const open = (server: TestServer) => new McpSession({ url: server.url, maxBytes: MAX });
    await withMcpServer({ tools, tasks: true, pollInterval: 120 }, open, async (session, server) => {
      const created = await sendRequest(
        session,
        { maxBytes: MAX, what: 'get_products', url: server.url },
        (client, signal) =>
          client.request(
            { method: 'tools/call', params: { name: 'get_products', arguments: {} } },
            CreateTaskResultSchema,
            { signal, task: {} },
          ),
      );
      const sleeps: number[] = [];
      const outcome = await followMcpTask(created.task, {
        session,
        url: server.url,
        maxBytes: MAX,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      });
      assert.equal(outcome.task.status, 'completed');
      assert.deepEqual(sleeps, [120, 120]);
      assert.equal(outcome.result?.structuredContent?.['status'], 'completed');
    });
  });
});
