import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/index.js';
import type { ActivityEvent } from '../../src/telemetry/activity.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import type { WebhookHandler } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { attr, parentOf, registerTestSdk, type TestSdk } from './otel-sdk.js';

// Known secrets planted in every place a careless instrumentation could copy them from.
const HMAC_SECRET = 'planted-hmac-secret-of-at-least-32-bytes-7731';
const BEARER = 'planted-bearer-token-5519';
const BRIEF_SECRET = 'planted-brief-text-8842';

describe('one buyer call through the reference seller with a webhook, traced end to end', () => {
  let sdk: TestSdk;
  let seller: ReferenceSeller;
  let receiver: Server;
  let handler: WebhookHandler;
  let client: AdcpClient;
  const received: ActivityEvent[] = [];
  const buyer: ActivityEvent[] = [];

  before(async () => {
    sdk = registerTestSdk();
    seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 40 } });
    handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: HMAC_SECRET },
      dedup: new MemoryDedupStore(),
      operations: new MemoryOperationStore(),
      onActivity: (event) => received.push(event),
      onEvent: () => undefined,
    });
    receiver = createServer((req, res) => handler.node(req, res));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    client = new AdcpClient({
      url: seller.mcpUrl,
      protocol: 'mcp',
      auth: BEARER,
      timeoutMs: 20_000,
      onActivity: (event) => buyer.push(event),
    });
  });
  after(async () => {
    await client.close();
    handler.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await seller.close();
    await sdk.shutdown();
  });

  it('links the client, server and webhook spans in one trace and records no secret', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/adcp?token=${BEARER}`;
    const submitted = await client.call('create_media_buy', {
      ...mediaBuyRequest([packageRequest('display_news', 10)], { po_number: BRIEF_SECRET }),
      push_notification_config: {
        url,
        operation_id: 'op-traced',
        authentication: { schemes: ['HMAC-SHA256'], credentials: HMAC_SECRET },
      },
    });
    assert.equal(submitted.status, 'submitted');
    const operation = await handler.waitForOperation('op-traced', { timeoutMs: 15_000 });
    assert.equal(operation.status, 'completed');
    // The final delivery's spans end right after the receiver answers.
    const deadline = Date.now() + 10_000;
    const finalReceive = () =>
      sdk.spans().some((s) => s.name === 'adcp.webhook.receive' && attr(s, 'adcp.webhook.outcome') === 'accepted');
    while (!finalReceive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    const spans = sdk.spans();
    const names = spans.map((s) => s.name).join(', ');
    const call = spans.find((s) => s.name === 'adcp.call create_media_buy');
    assert.ok(call, `no client call span in ${names}`);
    const traceId = call.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const byId = new Map(inTrace.map((s) => [s.spanContext().spanId, s]));

    const serverHttp = inTrace.find((s) => s.kind === 1 && s.name === 'POST' && attr(s, 'http.route') === '/mcp');
    assert.ok(serverHttp, `no server HTTP span in the client's trace: ${names}`);
    assert.equal(byId.get(parentOf(serverHttp) ?? '')?.kind, 2, 'the server continues a client span');
    const invocation = inTrace.find((s) => s.kind === 1 && s.name === 'tools/call create_media_buy');
    assert.ok(invocation, 'the tool invocation is in the trace');
    assert.equal(attr(invocation, 'adcp.status'), 'submitted');
    assert.ok(inTrace.some((s) => s.name === 'adcp.handler create_media_buy'));

    const sends = inTrace.filter((s) => s.name === 'adcp.webhook.send');
    assert.ok(sends.length >= 1, `no webhook send span in the trace: ${names}`);
    const receives = inTrace.filter((s) => s.name === 'adcp.webhook.receive');
    assert.ok(receives.length >= 1, 'the webhook receiver continues the trace');
    for (const receive of receives) {
      const parent = byId.get(parentOf(receive) ?? '');
      assert.equal(parent?.name, 'POST', 'each received webhook is the child of the attempt that sent it');
      assert.equal(byId.get(parentOf(parent) ?? '')?.name, 'adcp.webhook.send');
    }
    const accepted = receives.find((s) => attr(s, 'adcp.webhook.outcome') === 'accepted');
    assert.ok(accepted);
    assert.ok(inTrace.some((s) => s.name === 'adcp.webhook.verify' && parentOf(s) === accepted.spanContext().spanId));
    assert.ok(inTrace.some((s) => s.name === 'adcp.webhook.handler' && attr(s, 'adcp.operation_id') === 'op-traced'));

    // Activity: the receiver saw accepted deliveries in the same trace.
    assert.ok(received.some((e) => e.type === 'webhook' && e.outcome === 'accepted' && e.traceId === traceId));
    assert.ok(buyer.some((e) => e.type === 'response' && e.status === 'submitted' && e.traceId === traceId));

    const dump = JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        status: s.status,
        links: s.links,
      })),
    );
    for (const secret of [HMAC_SECRET, BEARER, BRIEF_SECRET])
      assert.ok(!dump.includes(secret), `a span holds ${secret}`);
    assert.ok(!JSON.stringify([...received, ...buyer]).includes(HMAC_SECRET));

    const collected = await sdk.metrics();
    for (const name of [
      'adcp.client.call.duration',
      'adcp.server.invocation.duration',
      'adcp.webhook.deliveries',
      'adcp.store.duration',
    ])
      assert.ok(collected.has(name), `metric ${name}`);
    // Calls and invocations are the duration histograms' counts, with no counter beside them.
    for (const name of ['adcp.client.calls', 'adcp.server.invocations'])
      assert.ok(!collected.has(name), `no metric ${name}`);
  });
});
