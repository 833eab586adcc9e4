// Issue 12, item 5 (webhooks.md, webhook-emission storyboard) with a real receiver on loopback: an
// event per status change with the caller's operation_id and context, one idempotency_key per event
// kept across retries, RFC 9421 by default, no webhook for an inline terminal answer, none for a replay.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

type Json = Record<string, unknown>;
interface Delivery {
  body: Json;
  raw: string;
  headers: Record<string, string | string[] | undefined>;
}

describe('webhook emission rules against a real receiver', () => {
  let seller: ReferenceSeller;
  let client: Client;
  let receiver: Server;
  let hookUrl: string;
  const deliveries: Delivery[] = [];
  let refusals = 2; // the first two deliveries get 503: the emitter must retry with the same key

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        deliveries.push({ raw, body: JSON.parse(raw) as Json, headers: req.headers });
        res.statusCode = refusals-- > 0 ? 503 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/opaque-route`;
    seller = await startReferenceSeller({ timings: { workingAfterMs: 50, completeAfterMs: 100 } });
    client = new Client({ name: 'webhook-rules', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const call = async (name: string, args: Json) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Json;
  const waitFor = async (predicate: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; Date.now() < end && !predicate();) await new Promise((r) => setTimeout(r, 100));
  };
  const buy = {
    account: { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' },
    brand: { domain: 'acmeoutdoor.example' },
    start_time: 'asap',
    end_time: '2099-06-30T23:59:59Z',
    packages: [{ product_id: 'ctv_entertainment', pricing_option_id: 'ctv_entertainment-cpm', budget: 1000 }],
    idempotency_key: 'webhook-rules-key-000001',
    context: { trace: 'ctx-1' },
  };

  it('sends working then completed, echoing operation_id and context, one stable key per event, RFC 9421 signed', async () => {
    const push = { url: hookUrl, operation_id: 'op-rules-1' };
    const answer = await call('create_media_buy', { ...buy, push_notification_config: push });
    assert.equal(answer.status, 'submitted');
    const finals = () => deliveries.filter((d) => d.body.status === 'completed');
    await waitFor(() => finals().length > 0, 60_000);
    const statuses = [...new Set(deliveries.map((d) => d.body.status))];
    assert.deepEqual(statuses, ['working', 'completed']);
    for (const d of deliveries) {
      assert.equal(d.body.operation_id, 'op-rules-1'); // never parsed from the URL
      assert.equal(d.body.task_id, answer.task_id);
      assert.deepEqual(d.body.context, { trace: 'ctx-1' });
      assert.match(String(d.body.idempotency_key), /^[A-Za-z0-9_.:-]{16,255}$/);
      assert.match(String(d.headers['signature-input']), /tag="adcp\/webhook-signing\/v1"/);
      assert.ok(String(d.headers['signature-input']).includes('"content-digest"'));
      assert.equal(d.headers['x-adcp-signature'], undefined); // HMAC only when the buyer registered it
    }
    // The first event was refused twice: three deliveries, one key, one body.
    const first = deliveries.filter((d) => d.body.status === 'working');
    assert.equal(first.length, 3);
    assert.equal(new Set(first.map((d) => d.body.idempotency_key)).size, 1);
    assert.equal(new Set(first.map((d) => d.raw)).size, 1);
    assert.notEqual(first[0]?.body.idempotency_key, finals()[0]?.body.idempotency_key);
  });

  it('answers a replay from the replay store without a second webhook', async () => {
    const before = deliveries.length;
    const replay = await call('create_media_buy', {
      ...buy,
      push_notification_config: { url: hookUrl, operation_id: 'op-rules-1' },
    });
    assert.equal(replay.replayed, true);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(deliveries.length, before);
  });

  it('sends no webhook for an inline terminal answer', async () => {
    const before = deliveries.length;
    const products = await call('get_products', {
      buying_mode: 'brief',
      brief: 'ctv',
      push_notification_config: { url: hookUrl, operation_id: 'op-sync' },
    });
    assert.equal(products.status, 'completed');
    assert.equal(products.task_id, undefined);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(deliveries.length, before);
  });
});
