import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import type { ProgressEvent } from '../../src/transport/transport.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { startMcpTestServer, withMcpServer, type TestServer, type TestTool } from '../mcp/helpers/mcp-test-server.js';
import { fakeClock } from './helpers/fake-clock.js';

const fakeClockClient = (server: TestServer) =>
  new AdcpClient({ url: server.url, protocol: 'mcp', clock: fakeClock() });

/** An agent whose media buy stays `submitted` until polled `polls` times; the count survives restarts. */
function approvalAgent(state: { polls: number; seen: number }, statusTool = 'get_task_status'): TestTool[] {
  return [
    {
      name: 'create_media_buy',
      handler: (args) => ({
        content: [],
        structuredContent: {
          status: 'submitted',
          task_id: 'mb-task-1',
          message: 'awaiting approval',
          context: args['context'],
        },
      }),
    },
    {
      name: 'ask_more',
      handler: () => ({ content: [], structuredContent: { status: 'submitted', task_id: 'ask-1' } }),
    },
    {
      name: statusTool,
      handler: (args) => {
        if (args['task_id'] === 'ask-1') {
          return {
            content: [],
            structuredContent: { task_id: 'ask-1', status: 'input-required', message: 'need a budget' },
          };
        }
        if (args['task_id'] === 'never') {
          return { content: [], structuredContent: { task_id: 'never', status: 'submitted' } };
        }
        state.seen += 1;
        if (state.seen < state.polls - 1) {
          return {
            content: [],
            structuredContent: { task_id: 'mb-task-1', task_type: 'create_media_buy', status: 'submitted' },
          };
        }
        if (state.seen === state.polls - 1) {
          return {
            content: [],
            structuredContent: { task_id: 'mb-task-1', status: 'working', percentage: 60, current_step: 'trafficking' },
          };
        }
        return {
          content: [],
          structuredContent: {
            task_id: 'mb-task-1',
            task_type: 'create_media_buy',
            status: 'completed',
            result: { status: 'completed', media_buy_id: 'mb_1', packages: [] },
          },
        };
      },
    },
  ];
}

describe('AdcpClient.waitFor with get_task_status', () => {
  const state = { polls: 4, seen: 0 };
  let server: TestServer;
  let client: AdcpClient;
  const operations = new MemoryOperationStore();
  before(async () => {
    server = await startMcpTestServer({ tools: approvalAgent(state) });
    client = new AdcpClient({ url: server.url, protocol: 'mcp', clock: fakeClock(), operations });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('follows a submitted result to completed and returns the task payload', async () => {
    state.seen = 0;
    const events: ProgressEvent[] = [];
    const first = await client.call('create_media_buy', {}, { context: { ref: 'c1' } });
    assert.equal(first.status, 'submitted');
    assert.equal(first.taskId, 'mb-task-1');
    const final = await client.waitFor(first, { onProgress: (e) => events.push(e) });
    assert.equal(final.status, 'completed');
    assert.equal(final.data?.['media_buy_id'], 'mb_1');
    assert.equal(state.seen, 4);
    const working = events.find((e) => e.status === 'working');
    assert.equal(working?.percentage, 60);
    assert.equal(working?.step, 'trafficking');
    assert.ok(
      events.every((e) => e.lifecycle === 'adcp'),
      'get_task_status polls report the AdCP task',
    );
  });

  it('polls with include_result, the AdCP task_id and the release, as every other call', () => {
    const poll = server.received.find(
      (m) => (m['params'] as { name?: string } | undefined)?.name === 'get_task_status',
    );
    assert.deepEqual((poll!['params'] as { arguments: unknown }).arguments, {
      task_id: 'mb-task-1',
      include_result: true,
      adcp_version: '3.1',
      adcp_major_version: 3,
    });
  });

  it('records the submitted result as an operation and advances it to completed', async () => {
    state.seen = 0;
    const store = new MemoryOperationStore();
    const own = new AdcpClient({ url: server.url, protocol: 'mcp', clock: fakeClock(), operations: store });
    try {
      const first = await own.call('create_media_buy', {});
      assert.equal(own.operationIdOf(first), 'mb-task-1');
      assert.equal((await store.get('mb-task-1'))?.status, 'submitted');
      await own.waitFor(first);
      const record = await store.get('mb-task-1');
      assert.equal(record?.status, 'completed');
      assert.equal((record?.result as Record<string, unknown> | undefined)?.['media_buy_id'], 'mb_1');
    } finally {
      await own.close();
    }
  });

  it('records under the webhook operation_id when the call registered one', async () => {
    const first = await client.call('create_media_buy', {
      push_notification_config: { url: 'https://buyer.example/hook', operation_id: 'op-42' },
    });
    assert.equal(client.operationIdOf(first), 'op-42');
    assert.equal((await operations.get('op-42'))?.taskType, 'create_media_buy');
  });

  it('generates the webhook operation_id when the call gave none and records under it', async () => {
    const first = await client.call('create_media_buy', {
      push_notification_config: { url: 'https://buyer.example/hook' },
    });
    const sent = server.received
      .filter((m) => (m['params'] as { name?: string } | undefined)?.name === 'create_media_buy')
      .at(-1);
    const push = (sent!['params'] as { arguments: { push_notification_config: { operation_id: string } } }).arguments
      .push_notification_config;
    assert.equal(client.operationIdOf(first), push.operation_id);
    assert.equal((await operations.get(push.operation_id))?.status, 'submitted');
  });

  it('returns input-required to the caller', async () => {
    const first = await client.call('ask_more' as string, {});
    const next = await client.waitFor(first);
    assert.equal(next.status, 'input-required');
    assert.equal(next.message, 'need a budget');
  });

  it('returns a settled result as is', async () => {
    const done = { status: 'completed' as const, data: {}, protocol: 'mcp' as const, raw: null };
    assert.equal(await client.waitFor(done), done);
  });

  it('refuses a pending result with no task id', async () => {
    await assert.rejects(client.waitFor({ status: 'working', data: undefined, protocol: 'mcp', raw: null }), TypeError);
  });

  it('gives up with a timeout error past timeoutMs', async () => {
    const real = new AdcpClient({ url: server.url, protocol: 'mcp' });
    try {
      const pending = {
        status: 'submitted' as const,
        taskId: 'never',
        data: undefined,
        protocol: 'mcp' as const,
        raw: null,
      };
      await assert.rejects(real.waitFor(pending, { timeoutMs: 150, pollIntervalMs: 20 }), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'timeout');
        return true;
      });
    } finally {
      await real.close();
    }
  });
});

describe('AdcpClient.waitFor with the legacy tasks/get tool', () => {
  it('polls tasks/get when the agent does not list get_task_status', async () => {
    const state = { polls: 2, seen: 0 };
    await withMcpServer({ tools: approvalAgent(state, 'tasks/get') }, fakeClockClient, async (client, server) => {
      const final = await client.waitFor(await client.call('create_media_buy', {}));
      assert.equal(final.status, 'completed');
      const names = server.received.map((m) => (m['params'] as { name?: string } | undefined)?.name);
      assert.ok(names.includes('tasks/get'));
      assert.ok(!names.includes('get_task_status'));
    });
  });
});

describe('AdcpClient.waitFor across a server restart', () => {
  it('keeps polling while the agent is down and finishes once it is back', async () => {
    const state = { polls: 6, seen: 0 };
    let server = await startMcpTestServer({ tools: approvalAgent(state) });
    const port = server.port;
    let sleeps = 0;
    let downPolls = 0;
    const clock = fakeClock(async () => {
      sleeps += 1;
      if (sleeps === 2) await server.close();
      if (sleeps > 2 && sleeps < 5) downPolls += 1;
      if (sleeps === 5) server = await startMcpTestServer({ tools: approvalAgent(state), port });
    });
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', clock });
    try {
      const final = await client.waitFor(await client.call('create_media_buy', {}));
      assert.equal(final.status, 'completed');
      assert.equal(downPolls, 2);
      assert.equal(state.seen, 6);
      // The restarted server saw a fresh initialize (its predecessor's session was gone).
      assert.ok(server.received.some((m) => m['method'] === 'initialize'));
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('AdcpClient with MCP Tasks', () => {
  it('calls task-augmented when asked and then follows the AdCP submitted payload inside', async () => {
    const state = { polls: 2, seen: 0 };
    const tools = approvalAgent(state).map((tool) =>
      tool.name === 'create_media_buy' ? { ...tool, taskSupport: 'optional' as const, taskPolls: 1 } : tool,
    );
    await withMcpServer({ tools, tasks: true, pollInterval: 50 }, fakeClockClient, async (client, server) => {
      const first = await client.call('create_media_buy', {}, { task: { ttl: 60_000 } });
      assert.equal(first.status, 'submitted');
      assert.equal(first.taskId, 'mb-task-1');
      assert.equal(typeof first.transportTaskId, 'string');
      const final = await client.waitFor(first);
      assert.equal(final.status, 'completed');
      assert.ok(server.received.some((m) => m['method'] === 'tasks/result'));
    });
  });
});

describe('AdcpClient with a failing operations store', () => {
  it('throws a store error that names the idempotency key to replay with', async () => {
    const broken = new MemoryOperationStore();
    broken.create = async () => {
      throw new Error('disk full');
    };
    const open = (server: TestServer) => new AdcpClient({ url: server.url, protocol: 'mcp', operations: broken });
    await withMcpServer({ tools: approvalAgent({ polls: 2, seen: 0 }) }, open, async (client) => {
      await assert.rejects(
        client.call('create_media_buy', {}, { idempotencyKey: 'replay-key-123456' }),
        (error: unknown) => {
          assert.ok(error instanceof AdcpWireError);
          assert.equal(error.code, 'store');
          assert.match(error.message, /idempotencyKey replay-key-123456/);
          return true;
        },
      );
    });
  });
});

describe('AdcpClient.waitFor task correlation', () => {
  it('refuses a status answer about another task_type', async () => {
    const tools: TestTool[] = [
      {
        name: 'create_media_buy',
        handler: () => ({ content: [], structuredContent: { status: 'submitted', task_id: 'x-1' } }),
      },
      {
        name: 'get_task_status',
        handler: () => ({
          content: [],
          structuredContent: { task_id: 'x-1', task_type: 'sync_creatives', status: 'completed', result: {} },
        }),
      },
    ];
    await withMcpServer({ tools }, fakeClockClient, async (client) => {
      const first = await client.call('create_media_buy', {});
      await assert.rejects(client.waitFor(first), (error: unknown) => {
        assert.ok(error instanceof AdcpWireError);
        assert.equal(error.code, 'protocol');
        assert.match(error.message, /task-correlation failure/);
        return true;
      });
    });
  });
});
