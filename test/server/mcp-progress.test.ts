import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { AdcpClient } from '../../src/client/index.js';
import type { ProgressEvent } from '../../src/transport/transport.js';
import type { TaskResult } from '../../src/core/task-result.js';

const tools = [
  {
    name: 'get_products',
    description: 'Products, with two progress reports on the way.',
    handler: async (
      _args: unknown,
      ctx: { working(m?: string, p?: { percentage?: number; step?: string }): Promise<void> },
    ) => {
      await ctx.working('Searching inventory', { percentage: 25, step: 'search' });
      await ctx.working('Ranking', { percentage: 75, step: 'ranking' });
      return { products: [{ product_id: 'p1' }] };
    },
  },
];

describe('createAdcpServer over MCP: ctx.working reaches the caller', () => {
  const server = createAdcpServer({
    validateRequests: false,
    tools,
    store: new MemoryTaskStore({ policy: { pollIntervalMs: 50 } }),
  });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await server.close();
  });

  it('sends notifications/progress to an official client that asked for progress', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.mcpUrl)));
    const seen: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = [];
    try {
      const result = await client.callTool({ name: 'get_products', arguments: {} }, CallToolResultSchema, {
        onprogress: (p) => seen.push(p),
      });
      assert.equal((result.structuredContent as { status: string }).status, 'completed');
    } finally {
      await client.close();
    }
    assert.deepEqual(seen, [
      { progress: 25, total: 100, message: 'Searching inventory' },
      { progress: 75, total: 100, message: 'Ranking' },
    ]);
  });

  it('sends no progress notification to a caller that did not ask', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening.mcpUrl)));
    let notified = 0;
    client.fallbackNotificationHandler = async () => {
      notified += 1;
    };
    try {
      await client.callTool({ name: 'get_products', arguments: {} });
    } finally {
      await client.close();
    }
    assert.equal(notified, 0);
  });

  it("reaches AdcpClient's onProgress over MCP on the 2025 era", async () => {
    const adcp = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', mcpEra: 'legacy' });
    const events: ProgressEvent[] = [];
    try {
      const result = await adcp.call('get_products', {}, { onProgress: (e) => events.push(e) });
      assert.equal(result.status, 'completed');
    } finally {
      await adcp.close();
    }
    assert.deepEqual(
      events.map((e) => [e.status, e.percentage, e.message]),
      [
        ['working', 25, 'Searching inventory'],
        ['working', 75, 'Ranking'],
      ],
    );
  });

  it("reaches AdcpClient's onProgress on the 2026 era when the call answers before it would become a task", async () => {
    const adcp = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', mcpEra: 'modern' });
    const events: ProgressEvent[] = [];
    try {
      const result = await adcp.call('get_products', {}, { onProgress: (e) => events.push(e) });
      assert.equal(result.status, 'completed');
      assert.equal(result.transportTaskId, undefined, 'a quick call is answered directly, not as a task');
    } finally {
      await adcp.close();
    }
    assert.deepEqual(
      events.map((e) => [e.status, e.percentage, e.message]),
      [
        ['working', 25, 'Searching inventory'],
        ['working', 75, 'Ranking'],
      ],
    );
  });
});

describe("createAdcpServer over MCP 2026-07-28: a task's status messages reach onProgress", () => {
  let step: (() => void) | undefined;
  /** Each report waits for the test to release it (bounded: 10 s a step). */
  const next = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the test never released the step')), 10_000);
      step = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const server = createAdcpServer({
    validateRequests: false,
    // The first report comes while the request is open (a notification), the second once the
    // call is a task (its statusMessage).
    taskAfterMs: 300,
    tools: [
      {
        name: 'get_products',
        description: 'Products, reported step by step.',
        handler: async (
          _args: unknown,
          ctx: { working(m?: string, p?: { percentage?: number; step?: string }): Promise<void> },
        ) => {
          await ctx.working('Searching inventory');
          await next();
          await ctx.working('Ranking', { percentage: 75 });
          await next();
          return { products: [{ product_id: 'p1' }] };
        },
      },
    ],
    store: new MemoryTaskStore({ policy: { pollIntervalMs: 20 } }),
  });
  let listening: ListeningAdcpServer;
  before(async () => {
    listening = await server.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await server.close();
  });

  it('shows each status message once (notification, then tasks/get), in order, and ends without a stale one', async () => {
    let polls = 0;
    // The tool moves on only after the client has polled the task three times.
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tasks/get"') && ++polls === 3) step?.();
      return response;
    };
    const adcp = new AdcpClient({ url: listening.mcpUrl, protocol: 'mcp', mcpEra: 'modern', fetch: counting });
    const events: ProgressEvent[] = [];
    const onProgress = (event: ProgressEvent) => {
      events.push(event);
      if (event.message === 'Ranking 75%') step?.();
    };
    let result: TaskResult;
    try {
      result = await adcp.call('get_products', {}, { onProgress });
      assert.equal(result.status, 'completed');
      assert.equal(typeof result.transportTaskId, 'string', 'the call became a task');
    } finally {
      await adcp.close();
    }
    const id = result.transportTaskId;
    assert.deepEqual(events, [
      { lifecycle: 'mcp', status: 'working', message: 'Searching inventory' },
      { lifecycle: 'mcp', status: 'working', taskId: id },
      // A task's statusMessage is text: the percentage is part of it (mcp-task-work.ts).
      { lifecycle: 'mcp', status: 'working', taskId: id, message: 'Ranking 75%' },
      { lifecycle: 'mcp', status: 'completed', taskId: id },
    ]);
  });
});
