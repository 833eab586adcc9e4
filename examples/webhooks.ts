// Receive webhooks: verified (RFC 9421 or legacy HMAC), de-duplicated, matched to operations.
import { createServer } from 'node:http';
import { createWebhookHandler } from 'adcp-wire/webhooks';
import { MemoryDedupStore, MemoryOperationStore } from 'adcp-wire/store';

const webhooks = createWebhookHandler({
  signature: { scheme: 'hmac', secret: process.env['WEBHOOK_SECRET'] ?? 'a-shared-secret-of-32-bytes-or-more' },
  dedup: new MemoryDedupStore(), // SqliteDedupStore and SqliteOperationStore survive restarts
  operations: new MemoryOperationStore(),
  onEvent: (event) => console.log(event.operationId, event.status, event.data),
}); // answers 2xx only after onEvent finished
createServer(webhooks.node).listen(4000, '127.0.0.1');
