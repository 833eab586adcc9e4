// Two reference sellers on one PostgreSQL schema (`startReferenceSeller({ storeUrl })`, what
// `adcp serve --store-url` runs): a media buy, a creative and a sandbox fixture written through
// one are read through the other, and a signed request accepted by one is a replay at the other.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { creativesRequest, mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { signRequest } from '../../src/signing/sign-request.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { adminQuery, pgSkip, pgUrl } from './pg-test-env.js';

type Json = { [key: string]: unknown };

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'seller-fleet-2026',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};

describe('reference sellers sharing PostgreSQL', { skip: pgSkip, timeout: 120_000 }, () => {
  const schema = `adcp_sellerstate_${Math.random().toString(16).slice(2, 10)}`;
  const sellers: ReferenceSeller[] = [];
  const clients: Client[] = [];

  before(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const url = new URL(pgUrl as string);
    url.searchParams.set('options', `-c search_path=${schema}`);
    for (let i = 0; i < 2; i += 1) {
      sellers.push(
        await startReferenceSeller({
          storeUrl: url.toString(),
          timings: { workingAfterMs: 10, completeAfterMs: 30 },
          requestSigning: { jwks: { keys: [jwk] } },
          testController: true,
        }),
      );
    }
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const seller of sellers) await seller.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  const call = async (seller: ReferenceSeller, tool: string, args: Json) => {
    const client = new Client({ name: 'seller-fleet-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
    clients.push(client);
    const result = await client.callTool({ name: tool, arguments: args });
    return { isError: result.isError === true, body: result.structuredContent as Json };
  };

  it('shows a media buy made through one seller in the other', async () => {
    const [a, b] = sellers as [ReferenceSeller, ReferenceSeller];
    const { body } = await call(
      a,
      'create_media_buy',
      mediaBuyRequest([packageRequest('display_ron', 100)], { idempotency_key: 'key-shared-state-0001' }),
    );
    assert.equal(body.status, 'submitted');
    let done: Json = {};
    for (let i = 0; i < 200 && done.status !== 'completed'; i += 1) {
      done = (await call(b, 'get_task_status', { task_id: body.task_id, include_result: true })).body;
      if (done.status !== 'completed') await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(done.status, 'completed');
    const id = (done.result as Json).media_buy_id;
    const listed = (await call(b, 'get_media_buys', { media_buy_ids: [id] })).body;
    assert.deepEqual(
      (listed.media_buys as Json[]).map((m) => m.media_buy_id),
      [id],
    );
  });

  it('shows a creative and a seeded product written through one seller in the other', async () => {
    const [a, b] = sellers as [ReferenceSeller, ReferenceSeller];
    const synced = await call(
      a,
      'sync_creatives',
      creativesRequest([{ creative_id: 'cr-shared-1' }], { idempotency_key: 'key-shared-state-0002' }),
    );
    assert.equal(synced.isError, false, JSON.stringify(synced.body));
    const again = await call(
      b,
      'sync_creatives',
      creativesRequest([{ creative_id: 'cr-shared-1' }], { idempotency_key: 'key-shared-state-0003' }),
    );
    assert.deepEqual(
      (again.body.creatives as Json[]).map((c) => c.action),
      ['updated'],
    );
    const listed = (await call(b, 'list_creatives', {})).body;
    assert.deepEqual(
      (listed.creatives as Json[]).map((c) => c.creative_id),
      ['cr-shared-1'],
    );
    const seeded = await call(a, 'comply_test_controller', {
      scenario: 'seed_product',
      params: { product_id: 'fleet_seeded', fixture: { name: 'Fleet seeded' } },
    });
    assert.equal(seeded.body.success, true, JSON.stringify(seeded.body));
    const products = (await call(b, 'get_products', { buying_mode: 'brief', brief: 'anything' })).body;
    assert.ok((products.products as Json[]).some((p) => p.product_id === 'fleet_seeded'));
  });

  it('refuses at one seller a signed request the other already accepted (one replay cache)', async () => {
    const [a, b] = sellers as [ReferenceSeller, ReferenceSeller];
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const post = async (seller: ReferenceSeller) => {
      const headers = signRequest(
        { method: 'POST', url: seller.mcpUrl, body, nonce: 'QUFBQUFBQUFBQUFBQUFBQQ' },
        { keyid: 'seller-fleet-2026', privateKey },
      );
      const response = await fetch(seller.mcpUrl, {
        method: 'POST',
        body,
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      });
      await response.arrayBuffer();
      return { status: response.status, challenge: response.headers.get('www-authenticate') };
    };
    assert.deepEqual(await post(a), { status: 200, challenge: null });
    assert.deepEqual(await post(b), { status: 401, challenge: 'Signature error="request_signature_replayed"' });
  });
});
