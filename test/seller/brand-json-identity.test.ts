// Issue 31, item 3: the reference seller behind an https public origin publishes a brand.json
// (3.1 brand.json, Brand Agent form) at /.well-known/brand.json, declares it as
// identity.brand_json_url in get_adcp_capabilities, and its webhooks verify with the keys a
// receiver finds through that chain (security.md, "Discovering an agent's signing keys via
// brand_json_url"): the library's brandJsonKeys, from the agent URL alone. The https origin is a
// TLS terminator stood in for by a fetch that forwards https://seller.example/... to the seller
// on loopback with `Host: seller.example`, as a proxy does. Without an https origin there is no
// brand.json (decision 0215).
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { agentCapabilities } from '../../src/client/agent-capabilities.js';
import { getValidator } from '../../src/schemas/index.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { brandJsonKeys } from '../../src/signing/brand-json-keys.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { createNodeHttpFetch } from '../../src/transport/node-http-fetch.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';

type Json = Record<string, unknown>;
const PUBLIC = 'https://seller.example';

describe('the reference seller behind an https origin publishes its keys through brand.json', () => {
  let seller: ReferenceSeller;
  let receiver: Server;
  const node = createNodeHttpFetch();
  /** The TLS terminator: https://seller.example/... to the seller, Host kept. */
  const proxy: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(`${PUBLIC}/`)) throw new TypeError(`no route to ${request.url}`);
    const headers = new Headers(request.headers);
    headers.set('host', new URL(PUBLIC).host);
    return await node.fetch(`${seller.url}${request.url.slice(PUBLIC.length)}`, {
      method: request.method,
      headers,
      redirect: 'manual',
      signal: request.signal,
      ...(request.body === null ? {} : { body: await request.arrayBuffer() }),
    });
  };
  before(async () => {
    seller = await startReferenceSeller({
      publicUrl: PUBLIC,
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      validateResponses: 'strict',
      // The receiver below listens on loopback, which a seller at a public origin otherwise refuses.
      allowInsecureWebhookUrls: true,
    });
  });
  after(async () => {
    node.close();
    await seller.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  });

  it('serves a schema-valid brand.json naming each endpoint and the JWKS, and declares it', async () => {
    assert.equal(seller.brandJsonUrl, `${PUBLIC}/.well-known/brand.json`);
    const response = await proxy(`${PUBLIC}/.well-known/brand.json`);
    assert.equal(response.status, 200);
    const brand = (await response.json()) as Json;
    const valid = getValidator('3.1').schema('brand.json', brand);
    assert.equal(valid.ok, true, JSON.stringify(valid));
    assert.deepEqual(
      (brand.agents as Json[]).map((a) => [a.type, a.url, a.jwks_uri]),
      [
        ['sales', `${PUBLIC}/mcp`, `${PUBLIC}/.well-known/jwks.json`],
        ['sales', `${PUBLIC}/a2a`, `${PUBLIC}/.well-known/jwks.json`],
      ],
    );
    for (const protocol of ['mcp', 'a2a'] as const) {
      const caps = (await agentCapabilities(`${PUBLIC}/${protocol}`, { fetch: proxy, protocol })) as Json;
      assert.deepEqual(caps.identity, { brand_json_url: `${PUBLIC}/.well-known/brand.json` });
    }
  });

  it("signs webhooks a receiver verifies with the keys found from the agent's URL alone", async () => {
    const keys = brandJsonKeys({
      agents: [`${PUBLIC}/mcp`],
      capabilities: (url) => agentCapabilities(url, { fetch: proxy, protocol: 'mcp' }),
      fetch: proxy,
    });
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      signature: { scheme: 'rfc9421', jwks: keys },
      dedup: new MemoryDedupStore(),
      operations: new MemoryOperationStore(),
      onEvent: (event) => {
        events.push(event);
      },
    });
    receiver = createServer((req, res) => handler.node(req, res));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/adcp`;
    const client = new AdcpClient({ url: `${PUBLIC}/mcp`, protocol: 'mcp', fetch: proxy, retry: false });
    try {
      const submitted = await client.call('create_media_buy', {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 100)]),
        idempotency_key: randomUUID(),
        push_notification_config: { url: hookUrl, operation_id: 'op-brand-json' },
      });
      assert.equal(submitted.status, 'submitted', JSON.stringify(submitted));
    } finally {
      await client.close();
    }
    const operation = await handler.waitForOperation('op-brand-json', { timeoutMs: 10_000 });
    assert.equal(operation.status, 'completed');
    assert.ok(events.length > 0);
    for (const event of events) assert.equal(event.sender.scheme, 'rfc9421');
  });

  it('has no brand.json without an https origin, and declares none', async () => {
    const plain = await startReferenceSeller({});
    try {
      assert.equal(plain.brandJsonUrl, undefined);
      const response = await fetch(`${plain.url}/.well-known/brand.json`);
      await response.body?.cancel();
      assert.equal(response.status, 404);
      const client = new AdcpClient({ url: plain.mcpUrl, protocol: 'mcp', retry: false });
      try {
        const caps = await client.call('get_adcp_capabilities', {});
        assert.equal((caps.data as Json).identity, undefined);
      } finally {
        await client.close();
      }
    } finally {
      await plain.close();
    }
  });
});
