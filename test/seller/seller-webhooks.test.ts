import { randomUUID } from 'node:crypto';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import type { WebhookEvent, WebhookHandler, WebhookSignatureConfig } from '../../src/webhooks/handler-types.js';
import type { JwkSet } from '../../src/signing/jwks.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ReferenceSeller } from '../../src/seller/start-reference-seller.js';

type Json = { [key: string]: unknown };
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

describe('reference seller webhooks through createWebhookEmitter to a real createWebhookHandler', () => {
  let seller: ReferenceSeller;
  let client: Client;
  const receivers: Server[] = [];

  /** Starts a receiver; returns its URL, handler and the events it accepted. */
  const receiver = async (signature: WebhookSignatureConfig) => {
    const events: WebhookEvent[] = [];
    const handler: WebhookHandler = createWebhookHandler({
      signature,
      dedup: new MemoryDedupStore(),
      operations: new MemoryOperationStore(),
      onEvent: (event) => {
        events.push(event);
      },
    });
    const server = createServer((req, res) => handler.node(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receivers.push(server);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/adcp`, handler, events };
  };

  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      validateResponses: 'strict',
    });
    client = new Client({ name: 'buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
    for (const server of receivers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const buy = (push: Json) =>
    client.callTool({
      name: 'create_media_buy',
      arguments: {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 100)]),
        idempotency_key: randomUUID(),
        context: { campaign: 'spring' },
        push_notification_config: push,
      },
    });

  it('delivers submitted -> working -> completed signed with legacy HMAC, correlated by operation_id', async () => {
    const hook = await receiver({ scheme: 'hmac', secret: SECRET });
    const submitted = await buy({
      url: hook.url,
      operation_id: 'op-hmac',
      authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET },
    });
    assert.equal((submitted.structuredContent as Json).status, 'submitted');
    const operation = await hook.handler.waitForOperation('op-hmac', { timeoutMs: 10_000 });
    assert.equal(operation.status, 'completed');
    assert.deepEqual(
      hook.events.map((e) => e.status),
      ['working', 'completed'],
    );
    const completed = hook.events[1];
    assert.equal(completed?.taskType, 'create_media_buy');
    assert.equal(completed?.taskId, (submitted.structuredContent as Json).task_id);
    assert.match(String(completed?.data?.media_buy_id), /^mb_/);
    assert.deepEqual(completed?.payload.context, { campaign: 'spring' });
  });

  it("delivers RFC 9421-signed webhooks verifiable with the seller's published JWKS", async () => {
    const published = (await (await fetch(`${seller.url}/.well-known/jwks.json`)).json()) as JwkSet;
    assert.deepEqual(published, seller.webhookJwks);
    const hook = await receiver({ scheme: 'rfc9421', jwks: published });
    await buy({ url: hook.url, operation_id: 'op-9421' });
    const operation = await hook.handler.waitForOperation('op-9421', { timeoutMs: 10_000 });
    assert.equal(operation.status, 'completed');
    assert.equal(hook.events[hook.events.length - 1]?.sender.scheme, 'rfc9421');
  });

  it('refuses a registration with a weak HMAC secret instead of dropping its webhooks', async () => {
    const result = await buy({
      url: 'http://127.0.0.1:9/x',
      operation_id: 'op-weak',
      authentication: { schemes: ['HMAC-SHA256'], credentials: 'short' },
    });
    assert.equal(result.isError, true);
    assert.equal(((result.structuredContent as Json).adcp_error as Json).code, 'INVALID_REQUEST');
  });

  it('refuses a webhook scheme the schema does not know with INVALID_REQUEST naming the field', async () => {
    const result = await buy({
      url: 'http://127.0.0.1:9/x',
      operation_id: 'op-x',
      authentication: { schemes: ['Basic'], credentials: SECRET },
    });
    const error = (result.structuredContent as Json).adcp_error as Json;
    assert.equal(error.code, 'INVALID_REQUEST');
    assert.match(String(error.field), /^push_notification_config\.authentication\.schemes/);
  });
});
