import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readNodeBody } from './read-node-body.js';

describe('readNodeBody', () => {
  const MAX = 64;
  let server: Server;
  let port = 0;
  // Boxed: resolving a promise with the read promise would wait for the read to settle.
  let onRead: (box: { read: Promise<Buffer | 'too_large'> }) => void = () => undefined;

  before(async () => {
    server = createServer((req, res) => {
      const read = readNodeBody(req, MAX);
      onRead({ read });
      read.then(
        (body) => res.end(body === 'too_large' ? 'too_large' : `read ${body.length}`),
        () => res.destroy(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function post(chunks: string[], headers: Record<string, string> = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it('reads a body at the cap whole', async () => {
    assert.equal(await post(['a'.repeat(30), 'b'.repeat(34)]), 'read 64');
  });

  it('refuses a chunked body that grows past the cap', async () => {
    assert.equal(await post(['a'.repeat(40), 'b'.repeat(40)]), 'too_large');
  });

  it('refuses a declared content-length over the cap before reading', async () => {
    assert.equal(await post(['x'.repeat(65)], { 'content-length': '65' }), 'too_large');
  });

  it('rejects when the client goes away before the body ends', async () => {
    const started = new Promise<{ read: Promise<Buffer | 'too_large'> }>((resolve) => (onRead = resolve));
    const req = request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': '50' } });
    req.on('error', () => undefined);
    req.write('only part of it');
    const { read } = await started;
    req.destroy();
    await assert.rejects(read);
  });
});
