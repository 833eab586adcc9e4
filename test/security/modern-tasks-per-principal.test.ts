// Issue 19: on the MCP 2026-07-28 era there is no session; a Tasks-extension task belongs to the
// principal that created it (SEP-2663 "tasks/list scoping": the task id must not be the only
// line of defence). Another principal's tasks/get, tasks/update and tasks/cancel find nothing,
// the body/depth caps, Host check and auth hook hold before the era is chosen, and the task
// creation limit answers -32029 on this era too.
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { gate } from '../server/fixtures.js';
import { modernRpc } from '../server/modern-rpc.js';

const TOKENS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer mallory': 'mallory' };
const authenticate = (req: IncomingMessage) => TOKENS[req.headers.authorization ?? ''] ?? null;
const as = (who: string) => ({ headers: { authorization: `Bearer ${who}` } });

describe('createAdcpServer, modern-era tasks per principal', () => {
  const held = gate();
  let server: ListeningAdcpServer;
  before(async () => {
    server = await createAdcpServer({
      authenticate,
      validateRequests: false,
      taskAfterMs: 0,
      maxBodyBytes: 4096,
      store: new MemoryTaskStore({ policy: { pollIntervalMs: 50, rateLimit: { max: 3, windowMs: 60_000 } } }),
      tools: [
        {
          name: 'sync_creatives',
          mutating: false, // about tasks, not idempotency keys
          description: 'Held until the test ends.',
          handler: async () => {
            await held.promise;
            return { creatives: [] };
          },
        },
      ],
    }).listen();
  });
  after(async () => {
    held.open();
    await server.close();
  });

  it("gives mallory 'not found' for alice's task on tasks/get, tasks/update and tasks/cancel", async () => {
    const created = await modernRpc(
      server.mcpUrl,
      'tools/call',
      { name: 'sync_creatives', arguments: {} },
      as('alice'),
    );
    const taskId = created.body.result?.taskId as string;
    assert.equal(typeof taskId, 'string');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await modernRpc(server.mcpUrl, method, { taskId, inputResponses: {} }, as('mallory'));
      assert.equal(answer.body.error?.code, -32602, method);
      assert.match(answer.body.error?.message ?? '', /Task not found/);
    }
    const own = await modernRpc(server.mcpUrl, 'tasks/get', { taskId }, as('alice'));
    assert.equal(own.body.result?.status, 'working', 'mallory could not cancel it');
  });

  it('refuses a modern request without credentials before any era is chosen (401)', async () => {
    const answer = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }),
    });
    assert.equal(answer.status, 401);
    await answer.body?.cancel();
  });

  it('refuses a modern request over the body cap (413) and a foreign Host (403)', async () => {
    const big = await modernRpc(
      server.mcpUrl,
      'tools/call',
      { name: 'sync_creatives', arguments: { padding: 'x'.repeat(8192) } },
      as('alice'),
    ).catch((error: unknown) => ({ status: 413, thrown: error }));
    assert.equal(big.status, 413);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(server.mcpUrl);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 403);
  });

  it("limits mallory's task creation (-32029 RATE_LIMITED) without touching alice's", async () => {
    let limited: { code: number; data?: unknown } | undefined;
    for (let i = 0; i < 6 && limited === undefined; i++) {
      const answer = await modernRpc(
        server.mcpUrl,
        'tools/call',
        { name: 'sync_creatives', arguments: {} },
        as('mallory'),
      );
      if (answer.body.error !== undefined) limited = answer.body.error;
    }
    assert.equal(limited?.code, -32029);
    assert.equal((limited?.data as { adcp_error?: { code: string } } | undefined)?.adcp_error?.code, 'RATE_LIMITED');
    const alice = await modernRpc(server.mcpUrl, 'tools/call', { name: 'sync_creatives', arguments: {} }, as('alice'));
    assert.equal(alice.body.result?.resultType, 'task');
  });
});
