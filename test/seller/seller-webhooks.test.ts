import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import type { WebhookEvent } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { sellerWebhookSender } from './webhook-sender.js';

type Json = { [key: string]: unknown };
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

describe('reference seller -> real createWebhookHandler', () => {
  const events: WebhookEvent[] = [];
  const handler = createWebhookHandler({
    signature: { scheme: 'hmac', secret: SECRET },
    dedup: new MemoryDedupStore(),
    operations: new MemoryOperationStore(),
    onEvent: (event) => {
      events.push(event);
    },
  });
  let receiver: Server;
  let hookUrl = '';
  let seller: ListeningAdcpServer;
  let client: Client;

  before(async () => {
    receiver = createServer((req, res) => handler.node(req, res));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/adcp`;
    seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs: 40 }, sendWebhook: sellerWebhookSender() });
    client = new Client({ name: 'buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  });
  after(async () => {
    await client.close();
    await seller.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('delivers submitted -> working -> completed, verified, to the operation named by operation_id', async () => {
    const submitted = await client.callTool({
      name: 'create_media_buy',
      arguments: {
        idempotency_key: 'e2e-1',
        packages: [{ product_id: 'ctv_premium_sports', budget: 100 }],
        context: { campaign: 'spring' },
        push_notification_config: {
          url: hookUrl,
          operation_id: 'op-e2e-1',
          authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET },
        },
      },
    });
    assert.equal((submitted.structuredContent as Json).status, 'submitted');
    const operation = await handler.waitForOperation('op-e2e-1', { timeoutMs: 10_000 });
    assert.equal(operation.status, 'completed');
    assert.deepEqual(events.map((e) => e.status), ['working', 'completed']);
    const completed = events[1];
    assert.equal(completed?.taskType, 'create_media_buy');
    assert.equal(completed?.taskId, (submitted.structuredContent as Json).task_id);
    assert.match(String(completed?.data?.media_buy_id), /^mb_/);
    assert.deepEqual(completed?.payload.context, { campaign: 'spring' });
  });
});
