// The receiver resolves its configuration once, at creation, and its two adapters answer alike.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import type { WebhookHandlerOptions, WebhookRejection } from '../../src/webhooks/handler-types.js';
import { SECRET, URL_BASE, envelope, hmacRequest, json, makeKey, signedRequest } from './helpers.js';

describe('createWebhookHandler: configuration resolved once', () => {
  it('keeps verifying with the HMAC secret it was created with, whatever happens to the options later', async () => {
    const signature = { scheme: 'hmac' as const, secret: SECRET as string };
    const handler = createWebhookHandler({ signature, dedup: new MemoryDedupStore() });
    signature.secret = '';
    const response = await handler.fetch(hmacRequest(JSON.stringify(envelope())));
    assert.deepEqual(await json(response), { ok: true, result: 'accepted' });
    handler.close();
  });

  it('keeps the RFC 9421 keys it was created with (the JWKS source is built once)', async () => {
    const key = makeKey();
    const signature: WebhookHandlerOptions['signature'] = { scheme: 'rfc9421', jwks: { keys: [key.publicJwk] } };
    const handler = createWebhookHandler({ signature, dedup: new MemoryDedupStore() });
    (signature as { jwks: unknown }).jwks = { keys: [] };
    const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), key.signing));
    assert.deepEqual(await json(response), { ok: true, result: 'accepted' });
    handler.close();
  });
});

describe('createWebhookHandler: a delivery for another task type', () => {
  it('answers 409 operation_task_type_mismatch and leaves the operation alone', async () => {
    const operations = new MemoryOperationStore();
    const rejections: WebhookRejection[] = [];
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      operations,
      onReject: (r) => rejections.push(r),
    });
    const first = envelope({ status: 'working' });
    assert.equal((await handler.fetch(hmacRequest(JSON.stringify(first)))).status, 200);
    const other = envelope({ operation_id: first['operation_id'], task_type: 'sync_creatives' });
    const response = await handler.fetch(hmacRequest(JSON.stringify(other)));
    assert.equal(response.status, 409);
    assert.deepEqual(await json(response), { ok: false, reason: 'operation_task_type_mismatch' });
    assert.equal((await operations.get(first['operation_id'] as string))?.status, 'working');
    assert.deepEqual(
      rejections.map((r) => r.reason),
      ['operation_task_type_mismatch'],
    );
    handler.close();
  });
});

describe('createWebhookHandler: the two adapters answer alike', () => {
  const rejections: WebhookRejection[] = [];
  const handler = createWebhookHandler({
    signature: { scheme: 'hmac', secret: SECRET },
    dedup: new MemoryDedupStore(),
    onReject: (r) => rejections.push(r),
  });
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer(handler.node);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    handler.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('.fetch answers 400 unreadable_body when the body stream fails, as .node does', async () => {
    rejections.length = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"idempotency_key":'));
        controller.error(new Error('connection reset'));
      },
    });
    const request = new Request(URL_BASE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    });
    const response = await handler.fetch(request);
    assert.equal(response.status, 400);
    assert.deepEqual(await json(response), { ok: false, reason: 'unreadable_body' });
    assert.deepEqual(rejections, [{ status: 400, reason: 'unreadable_body' }]);
  });

  it('answer the same status, body and rejection for the same refused requests', async () => {
    const cases: Array<{ method: string; contentType: string; body: string }> = [
      { method: 'GET', contentType: 'application/json', body: '' },
      { method: 'POST', contentType: 'text/plain', body: '{}' },
      { method: 'POST', contentType: 'application/json', body: JSON.stringify(envelope()) },
    ];
    for (const c of cases) {
      rejections.length = 0;
      const viaFetch = await handler.fetch(
        new Request(URL_BASE, {
          method: c.method,
          headers: { 'content-type': c.contentType },
          ...(c.method === 'GET' ? {} : { body: c.body }),
        }),
      );
      const fetched = { status: viaFetch.status, body: await viaFetch.text(), rejections: [...rejections] };
      rejections.length = 0;
      const viaNode = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: c.method,
            path: '/webhooks/adcp',
            headers: { 'content-type': c.contentType },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          },
        );
        req.on('error', reject);
        req.end(c.method === 'GET' ? undefined : c.body);
      });
      assert.deepEqual({ ...viaNode, rejections: [...rejections] }, fetched, `${c.method} ${c.contentType}`);
    }
  });
});
