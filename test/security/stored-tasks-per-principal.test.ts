// Issue 10, item 9: the store holds at most `maxTasksPerOwner` unexpired tasks per principal, so a
// principal within its rate limit still cannot fill the store for a whole TTL; other principals
// keep creating tasks.
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import { SqliteTaskStore } from '../../src/store/sqlite-task-store.js';
import { testTools } from '../server/fixtures.js';
import { mcpPost, openMcpSession, rpcMessage } from './raw-http.js';
import type { Json } from './raw-http.js';

const TOKENS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer mallory': 'mallory' };
const authenticate = (req: IncomingMessage) => TOKENS[req.headers.authorization ?? ''] ?? null;
const as = (who: string) => ({ authorization: `Bearer ${who}` });

/** A task-augmented tools/call on a fresh session: the created task id, or the JSON-RPC error. */
async function createTask(mcpUrl: string, who: string): Promise<{ taskId?: string; error?: Json }> {
  const session = await openMcpSession(mcpUrl, { headers: as(who) });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_products', arguments: { brief: 'x' }, task: { ttl: 60_000 } },
  });
  const message = rpcMessage(await mcpPost(mcpUrl, session, body, { headers: as(who) }));
  if (message.error !== undefined) return { error: message.error as Json };
  return { taskId: String(((message.result as Json).task as Json).taskId) };
}

describe('stored tasks per principal', () => {
  const server = createAdcpServer({
    tools: testTools(),
    validateRequests: false, // the tools' arguments are not the point
    authenticate,
    store: new SqliteTaskStore({ path: ':memory:', policy: { maxTasksPerOwner: 4 }, sweepIntervalMs: 0 }),
  });
  let mcpUrl = '';
  before(async () => {
    mcpUrl = (await server.listen()).mcpUrl;
  });
  after(async () => {
    await server.close();
  });

  it('refuses a principal at the cap with -32029 RATE_LIMITED (well within the rate limit), not another', async () => {
    for (let i = 0; i < 4; i += 1) {
      assert.equal(typeof (await createTask(mcpUrl, 'mallory')).taskId, 'string');
    }
    const refused = await createTask(mcpUrl, 'mallory');
    assert.equal(refused.error?.code, -32029);
    const adcpError = (refused.error?.data as Json | undefined)?.adcp_error as Json | undefined;
    assert.equal(adcpError?.code, 'RATE_LIMITED');
    const retryAfter = Number(adcpError?.retry_after);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `retry_after ${retryAfter} is when the soonest task expires`);
    assert.equal(typeof (await createTask(mcpUrl, 'alice')).taskId, 'string');
  });
});
