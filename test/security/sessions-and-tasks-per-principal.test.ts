// Issue 10, items 2 and 9: MCP sessions are capped per principal (a flood evicts only the
// flooder's own sessions), MCP Tasks belong to the principal (they outlive the session that made
// them) and the task creation rate limit is per principal (per address when anonymous), so new
// sessions do not reset it.
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { testTools } from '../server/fixtures.js';
import { mcpPost, openMcpSession, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

const TOKENS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer mallory': 'mallory' };
const authenticate = (req: IncomingMessage) => TOKENS[req.headers.authorization ?? ''] ?? null;
const as = (who: string) => ({ authorization: `Bearer ${who}` });

/** Runs `count` jobs, `width` at a time. */
async function inParallel(count: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** A task-augmented tools/call on a raw session: the created task id, or the JSON-RPC error. */
async function createTask(
  mcpUrl: string,
  session: string,
  options: { headers?: Record<string, string>; localAddress?: string } = {},
): Promise<{ taskId?: string; error?: Json }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_products', arguments: { brief: 'x' }, task: { ttl: 60_000 } },
  });
  const message = rpcMessage(await mcpPost(mcpUrl, session, body, options));
  if (message.error !== undefined) return { error: message.error as Json };
  return { taskId: String(((message.result as Json).task as Json).taskId) };
}

describe('MCP sessions and tasks per principal', () => {
  const server = createAdcpServer({
    tools: testTools(),
    validateRequests: false, // transport probes: the tools' arguments are not the point
    authenticate,
    store: new MemoryTaskStore({ policy: { pollIntervalMs: 20 } }),
    maxSessions: 100,
    maxSessionsPerPrincipal: 20,
  });
  let listening: ListeningAdcpServer;
  const clients: Client[] = [];
  const connect = async (who: string): Promise<Client> => {
    const client = new Client({ name: who, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(listening.mcpUrl), { requestInit: { headers: as(who) } }),
    );
    clients.push(client);
    return client;
  };
  const finishedTask = async (client: Client): Promise<string> => {
    let taskId = '';
    for await (const event of client.experimental.tasks.callToolStream(
      { name: 'get_products', arguments: { brief: 'kept' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (event.type === 'taskCreated') taskId = event.task.taskId;
    }
    return taskId;
  };

  before(async () => {
    listening = await server.listen();
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server.close();
  });

  it("survives another principal's flood of 150 sessions: session, task and result stay reachable", async () => {
    const alice = await connect('alice');
    const taskId = await finishedTask(alice);
    assert.notEqual(taskId, '');
    const started = Date.now();
    await inParallel(150, 10, async () => {
      await openMcpSession(listening.mcpUrl, { headers: as('mallory') });
    });
    assert.ok(Date.now() - started < 20_000, 'the flood is bounded in time');
    assert.ok((await alice.listTools()).tools.length > 0);
    const result = await alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal((result.structuredContent as Json).status, 'completed');
  });

  it("keeps a task's result after its session is gone: another session of the principal reads it", async () => {
    const first = await connect('alice');
    const taskId = await finishedTask(first);
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    const second = await connect('alice');
    assert.equal((await second.experimental.tasks.getTask(taskId)).status, 'completed');
    const result = await second.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal((result.structuredContent as Json).status, 'completed');
  });

  it("does not let another principal read, cancel or list a principal's task", async () => {
    const taskId = await finishedTask(await connect('alice'));
    const mallory = await connect('mallory');
    await assert.rejects(mallory.experimental.tasks.getTask(taskId), /not found/i);
    await assert.rejects(mallory.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), /not found/i);
    await assert.rejects(mallory.experimental.tasks.cancelTask(taskId), /not found/i);
    const listed = await mallory.experimental.tasks.listTasks();
    assert.equal(
      listed.tasks.some((t) => t.taskId === taskId),
      false,
    );
  });
});

describe('MCP task creation rate limit per principal', () => {
  const rateLimit = { max: 3, windowMs: 60_000 };
  const authed = createAdcpServer({
    tools: testTools(),
    authenticate,
    store: new MemoryTaskStore({ policy: { rateLimit } }),
  });
  const anonymous = createAdcpServer({ tools: testTools(), store: new MemoryTaskStore({ policy: { rateLimit } }) });
  let authedUrl = '';
  let anonymousUrl = '';
  before(async () => {
    authedUrl = (await authed.listen()).mcpUrl;
    anonymousUrl = (await anonymous.listen()).mcpUrl;
  });
  after(async () => {
    await authed.close();
    await anonymous.close();
  });

  it('refuses the fourth task on a brand-new session with -32029 and RATE_LIMITED', async () => {
    for (let i = 0; i < 3; i += 1) {
      const session = await openMcpSession(authedUrl, { headers: as('mallory') });
      assert.equal(typeof (await createTask(authedUrl, session, { headers: as('mallory') })).taskId, 'string');
    }
    const fresh = await openMcpSession(authedUrl, { headers: as('mallory') });
    const refused = await createTask(authedUrl, fresh, { headers: as('mallory') });
    assert.equal(refused.error?.code, -32029);
    assert.equal(((refused.error?.data as Json | undefined)?.adcp_error as Json | undefined)?.code, 'RATE_LIMITED');
    const other = await openMcpSession(authedUrl, { headers: as('alice') });
    assert.equal(typeof (await createTask(authedUrl, other, { headers: as('alice') })).taskId, 'string');
  });

  it('limits anonymous callers per address, not all together', async () => {
    for (let i = 0; i < 3; i += 1) {
      const session = await openMcpSession(anonymousUrl);
      assert.equal(typeof (await createTask(anonymousUrl, session)).taskId, 'string');
    }
    const again = await createTask(anonymousUrl, await openMcpSession(anonymousUrl));
    assert.equal(again.error?.code, -32029);
    const elsewhere = { localAddress: '127.0.0.2' };
    const session = await openMcpSession(anonymousUrl, elsewhere);
    assert.equal(typeof (await createTask(anonymousUrl, session, elsewhere)).taskId, 'string');
  });
});
