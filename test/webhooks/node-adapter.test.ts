import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { signWebhookHmac } from '../../src/webhooks/hmac.js';
import { SECRET, envelope } from './helpers.js';

function post(
  port: number,
  headers: Record<string, string | number>,
  write: (req: ReturnType<typeof httpRequest>) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/webhooks/adcp', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    write(req);
  });
}

describe('createWebhookHandler node:http adapter', () => {
  let server: Server;
  let port: number;
  let dispatched = 0;
  before(async () => {
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      maxBodyBytes: 4096,
      onEvent: () => {
        dispatched += 1;
      },
    });
    server = createServer(handler.node);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('verifies the raw bytes and dispatches a signed delivery', async () => {
    const body = JSON.stringify(envelope());
    const response = await post(
      port,
      {
        'content-type': 'application/json; charset=utf-8',
        ...signWebhookHmac({ secret: SECRET, rawBody: body }).headers,
      },
      (req) => req.end(body),
    );
    assert.deepEqual(response, { status: 200, body: '{"ok":true,"result":"accepted"}' });
    assert.equal(dispatched, 1);
  });

  it('answers 413 at once for a declared length over the cap', async () => {
    const response = await post(port, { 'content-type': 'application/json', 'content-length': 10_000_000 }, (req) =>
      req.write('{'),
    );
    assert.equal(response.status, 413);
  });

  it('answers 413 for a chunked body as soon as it passes the cap, without reading the rest', async () => {
    let written = 0;
    const response = await post(port, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, (req) => {
      const chunk = Buffer.alloc(1024, 0x20);
      const pump = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      req.on('error', () => undefined);
      pump();
    });
    assert.equal(response.status, 413);
    assert.ok(written < 64 * 1024 * 1024, `client wrote ${written} bytes before the answer`);
  });
});
