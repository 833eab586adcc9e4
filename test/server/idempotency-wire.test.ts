// Idempotency as a caller sees it on the wire (security.md, "Idempotency"), against a real server
// with a SQLite store: the official MCP client for the required key and replays, raw A2A
// JSON-RPC bodies for payloads that differ only in member order and number spelling.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { SqliteIdempotencyStore } from '../../src/store/sqlite-idempotency-store.js';

type Json = Record<string, unknown>;

describe('createAdcpServer: idempotency on the wire (SQLite store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-idem-'));
  let listening: ListeningAdcpServer;
  let mcp: Client;
  const runs = { create_media_buy: 0, get_products: 0 };
  before(async () => {
    const server = createAdcpServer({
      tools: [
        {
          name: 'create_media_buy',
          description: 'Buy.',
          handler: () => ({ media_buy_id: `mb_${(runs.create_media_buy += 1)}`, packages: [] }),
        },
        {
          name: 'get_products',
          description: 'Products.',
          handler: () => ({ products: [], note: `run ${(runs.get_products += 1)}` }),
        },
      ],
      validateRequests: false,
      idempotency: { store: new SqliteIdempotencyStore({ path: join(dir, 'keys.db') }) },
    });
    listening = await server.listen();
    mcp = new Client({ name: 'idempotency-wire', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(listening.mcpUrl)));
  });
  after(async () => {
    await mcp.close();
    await listening.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Json) => {
    const result = (await mcp.callTool({ name, arguments: args })) as Json;
    return { isError: result.isError === true, body: result.structuredContent as Json };
  };

  it('refuses create_media_buy without idempotency_key (INVALID_REQUEST), running nothing', async () => {
    const before = runs.create_media_buy;
    const { isError, body } = await call('create_media_buy', { packages: [], context: { c: 1 } });
    assert.equal(isError, true);
    assert.deepEqual(body.adcp_error, {
      code: 'INVALID_REQUEST',
      message: 'idempotency_key is required on create_media_buy: send a fresh UUID v4 and keep it for every retry.',
      recovery: 'correctable',
      field: 'idempotency_key',
    });
    assert.deepEqual(body.context, { c: 1 });
    assert.equal(runs.create_media_buy, before);
  });

  it('replays the stored answer with replayed: true and the new context, without running the handler', async () => {
    const key = randomUUID();
    const first = await call('create_media_buy', { idempotency_key: key, packages: [1], context: { try: 1 } });
    assert.equal(first.body.replayed, undefined);
    const count = runs.create_media_buy;
    const again = await call('create_media_buy', { packages: [1], idempotency_key: key, context: { try: 2 } });
    assert.equal(again.body.replayed, true);
    assert.equal(again.body.media_buy_id, first.body.media_buy_id);
    assert.deepEqual(again.body.context, { try: 2 });
    assert.equal(runs.create_media_buy, count);
  });

  it('answers IDEMPOTENCY_CONFLICT for another payload, leaking nothing of the first', async () => {
    const key = randomUUID();
    const first = await call('create_media_buy', { idempotency_key: key, packages: [1] });
    const { isError, body } = await call('create_media_buy', { idempotency_key: key, packages: [2] });
    assert.equal(isError, true);
    const error = body.adcp_error as Json;
    assert.deepEqual(Object.keys(error).sort(), ['code', 'message', 'recovery']);
    assert.equal(error.code, 'IDEMPOTENCY_CONFLICT');
    assert.ok(!JSON.stringify(body).includes(String(first.body.media_buy_id)));
  });

  it('accepts a key on a read and applies the replay contract to it', async () => {
    const plain = await call('get_products', { brief: 'x' });
    assert.equal(plain.isError, false);
    const key = randomUUID();
    const first = await call('get_products', { brief: 'y', idempotency_key: key });
    const again = await call('get_products', { brief: 'y', idempotency_key: key });
    assert.equal(again.body.replayed, true);
    assert.equal(again.body.note, first.body.note);
  });

  it('refuses a 10 KB key and a non-ASCII key with INVALID_REQUEST, echoing neither', async () => {
    for (const key of ['k'.repeat(10_240), 'clé-de-idempotence-0123']) {
      const { isError, body } = await call('create_media_buy', { idempotency_key: key, packages: [] });
      assert.equal(isError, true);
      assert.equal((body.adcp_error as Json).code, 'INVALID_REQUEST');
      assert.ok(!JSON.stringify(body).includes(key.slice(0, 12)));
    }
  });

  it('treats member order and number spelling as the same payload (A2A, raw JSON bodies)', async () => {
    const key = randomUUID();
    const send = async (input: string) => {
      const body = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"${randomUUID()}","role":"user","parts":[{"kind":"data","data":{"skill":"create_media_buy","input":${input}}}]}}}`;
      const response = await fetch(listening.a2aUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const task = ((await response.json()) as Json).result as Json;
      const parts = ((task.artifacts as Json[])[0]!.parts as Json[]).filter((p) => p.kind === 'data');
      return parts[parts.length - 1]!.data as Json;
    };
    const first = await send(`{"idempotency_key":"${key}","packages":[{"budget":5000,"product_id":"p"}],"x":1}`);
    const again = await send(`{"x":1.0,"packages":[{"product_id":"p","budget":5e3}],"idempotency_key":"${key}"}`);
    assert.equal(again.replayed, true);
    assert.equal(again.media_buy_id, first.media_buy_id);
  });
});
