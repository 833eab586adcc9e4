// `mcpSessions: 'stateless'`: 2025-era MCP clients served by two servers sharing their stores,
// each request to the other server (no session id, no stickiness), with the official SDK client.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { MemoryIdempotencyStore } from '../../src/store/memory-idempotency-store.js';
import { testTools } from './fixtures.js';

type Json = { [key: string]: unknown };

describe("createAdcpServer({ mcpSessions: 'stateless' }): 2025-era MCP without sessions", () => {
  const store = new MemoryTaskStore({ policy: { pollIntervalMs: 50, maxTtlMs: 120_000 } });
  const keys = new MemoryIdempotencyStore();
  const servers = [0, 1].map(() =>
    createAdcpServer({
      validateRequests: false,
      tools: testTools({}),
      store,
      idempotency: { store: keys },
      mcpSessions: 'stateless',
    }),
  );
  let listening: ListeningAdcpServer[] = [];
  const served: number[] = [0, 0];
  const sessionIds: string[] = [];
  const clients: Client[] = [];

  /** The SDK client's fetch, sent to each server in turn (a round-robin load balancer). */
  const roundRobin = () => {
    let next = 0;
    return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const index = next++ % listening.length;
      served[index] = (served[index] ?? 0) + 1;
      const url = new URL(String(input instanceof Request ? input.url : input));
      url.port = new URL(listening[index]!.mcpUrl).port;
      const response = await fetch(url, init);
      const session = response.headers.get('mcp-session-id');
      if (session !== null) sessionIds.push(session);
      return response;
    };
  };
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'stateless-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(listening[0]!.mcpUrl), { fetch: roundRobin() }));
    clients.push(client);
    return client;
  };

  before(async () => {
    listening = await Promise.all(servers.map((s) => s.listen()));
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const server of servers) await server.close();
    await store.close();
  });

  it('serves initialize, tools/list and tools/call through alternating servers and issues no session id', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'get_products'));
    const result = await client.callTool({ name: 'get_products', arguments: { brief: 'ctv' } });
    assert.equal((result.structuredContent as Json).status, 'completed');
    assert.deepEqual(sessionIds, []);
    assert.ok(served[0]! > 0 && served[1]! > 0, `both servers answered: ${served.join(', ')}`);
  });

  it('creates an MCP Task on one server and reads, lists and finishes it through the other', async () => {
    const client = await connect();
    const created = (await client.request(
      { method: 'tools/call', params: { name: 'get_products', arguments: {}, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    const taskId = created.task.taskId;
    let status = '';
    for (let i = 0; i < 200 && status !== 'completed'; i += 1) {
      status = (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
      if (status !== 'completed') await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 'completed');
    const listed = await client.experimental.tasks.listTasks();
    assert.ok(listed.tasks.some((t) => t.taskId === taskId));
    const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
    assert.equal((result.structuredContent as Json).status, 'completed');
  });

  it('answers GET and DELETE with 405 (no standalone stream, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(listening[1]!.mcpUrl, {
        method,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'whatever' },
      });
      await response.arrayBuffer();
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'POST');
    }
  });

  it('refuses another mcpSessions value', () => {
    assert.throws(
      () => createAdcpServer({ tools: [], mcpSessions: 'sticky' as 'memory' }),
      /mcpSessions must be 'memory' or 'stateless'/,
    );
  });
});
