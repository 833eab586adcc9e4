// Issue 12, item 1: with auth.tokens, every task, idempotency entry and seller object belongs to
// the principal of the token that made it. Bob holds a valid token of his own and Alice's task
// ids and idempotency key; he reads, cancels and replays none of her work, over MCP and A2A.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { AdcpClient } from '../../src/client/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { mediaBuyRequest, packageRequest, productsRequest } from '../../src/seller/sample-requests.js';
import { ACTIVATED_HEADERS } from '../server/profile-activation.js';
import { mcpPost, openMcpSession, rpcMessage, type Json } from './raw-http.js';

const ALICE = `alice_${randomBytes(16).toString('hex')}`;
const BOB = `bob_${randomBytes(16).toString('hex')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('principal isolation under auth.tokens (reference seller)', () => {
  let seller: ReferenceSeller;
  const clients: AdcpClient[] = [];
  before(async () => {
    seller = await startReferenceSeller({
      auth: { tokens: { [ALICE]: 'alice', [BOB]: 'bob' } },
      timings: { workingAfterMs: 50, completeAfterMs: 30_000 },
    });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });
  const client = (token: string, protocol: 'mcp' | 'a2a') => {
    const made = new AdcpClient({
      url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
      protocol,
      auth: token,
      retry: false,
    });
    clients.push(made);
    return made;
  };

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`bob cannot read alice's AdCP task, replay her key or see her media buy (${protocol})`, async () => {
      const key = randomUUID();
      const buy = mediaBuyRequest([packageRequest('display_news', 10)]);
      const created = await client(ALICE, protocol).call('create_media_buy', buy, { idempotencyKey: key });
      assert.equal(created.status, 'submitted', JSON.stringify(created));
      const taskId = created.data?.task_id;
      assert.equal(typeof taskId, 'string', JSON.stringify(created));

      const own = await client(ALICE, protocol).call('get_task_status', { task_id: taskId as string });
      assert.notEqual(own.status, 'failed', JSON.stringify(own));
      const stolen = await client(BOB, protocol).call('get_task_status', { task_id: taskId as string });
      assert.equal(stolen.status, 'failed', JSON.stringify(stolen));
      assert.ok(!JSON.stringify(stolen).includes('alice'));

      // The same key and payload from Bob is Bob's own first call, never Alice's stored answer.
      const replayAlice = await client(ALICE, protocol).call('create_media_buy', buy, { idempotencyKey: key });
      assert.equal(replayAlice.data?.replayed, true, JSON.stringify(replayAlice));
      const bobs = await client(BOB, protocol).call('create_media_buy', buy, { idempotencyKey: key });
      assert.notEqual(bobs.data?.replayed, true, JSON.stringify(bobs));
      assert.notEqual(bobs.data?.task_id, taskId);
    });
  }

  it("bob's MCP session cannot get or cancel alice's MCP Task", async () => {
    const aliceSession = await openMcpSession(seller.mcpUrl, { headers: bearer(ALICE) });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_products', arguments: productsRequest('ctv'), task: { ttl: 60_000 } },
    });
    const created = rpcMessage(await mcpPost(seller.mcpUrl, aliceSession, call, { headers: bearer(ALICE) }));
    const taskId = String(((created.result as Json | undefined)?.task as Json | undefined)?.taskId);
    assert.match(taskId, /\S{8,}/, JSON.stringify(created));
    const bobSession = await openMcpSession(seller.mcpUrl, { headers: bearer(BOB) });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/result']) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method, params: { taskId } });
      const answer = rpcMessage(await mcpPost(seller.mcpUrl, bobSession, body, { headers: bearer(BOB) }));
      assert.ok(answer.error !== undefined, `${method}: ${JSON.stringify(answer)}`);
    }
    // Alice's session id with Bob's token is not Alice's session.
    const hijack = await mcpPost(
      seller.mcpUrl,
      aliceSession,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      {
        headers: bearer(BOB),
      },
    );
    assert.equal(hijack.status, 404);
    const mine = rpcMessage(
      await mcpPost(
        seller.mcpUrl,
        aliceSession,
        JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { taskId } }),
        {
          headers: bearer(ALICE),
        },
      ),
    );
    assert.equal(mine.error, undefined, JSON.stringify(mine));
  });

  it("bob cannot get or cancel alice's A2A task", async () => {
    const post = async (token: string, method: string, params: Json) => {
      const response = await fetch(seller.a2aUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ACTIVATED_HEADERS, ...bearer(token) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return (await response.json()) as Json;
    };
    const sent = await post(ALICE, 'SendMessage', {
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { skill: 'list_creatives', input: {} } }],
      },
    });
    const taskId = ((sent.result as Json).task as Json).id as string;
    assert.equal(typeof taskId, 'string', JSON.stringify(sent));
    for (const method of ['GetTask', 'CancelTask']) {
      const answer = await post(BOB, method, { id: taskId });
      assert.equal((answer.error as Json | undefined)?.code, -32001, `${method}: ${JSON.stringify(answer)}`);
    }
    assert.equal((await post(ALICE, 'GetTask', { id: taskId })).error, undefined);
  });
});
