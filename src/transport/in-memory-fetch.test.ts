import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createInMemoryFetch } from './in-memory-fetch.js';

const ORIGIN = 'http://127.0.0.1';

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('createInMemoryFetch', () => {
  it('carries method, path, headers and body to the handler, and status, headers and body back', async () => {
    let seen: Record<string, string | undefined> | undefined;
    const fetch = createInMemoryFetch(async (req: IncomingMessage, res: ServerResponse) => {
      seen = {
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        body: await readAll(req),
        remote: req.socket.remoteAddress,
      };
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    }, ORIGIN);
    const response = await fetch(`${ORIGIN}/mcp?x=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"héllo":1}',
    });
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual(await response.json(), { ok: true });
    assert.deepEqual(seen, {
      method: 'POST',
      url: '/mcp?x=1',
      auth: 'Bearer t',
      body: '{"héllo":1}',
      remote: '127.0.0.1',
    });
  });

  it('serves an object with handle(req, res), such as an AdcpServer', async () => {
    const server = { handle: (_req: IncomingMessage, res: ServerResponse) => void res.end('handled') };
    const response = await createInMemoryFetch(server, ORIGIN)(`${ORIGIN}/`);
    assert.equal(await response.text(), 'handled');
  });

  it('streams the answer: the client reads each part before the handler writes the next', async () => {
    let readFirst!: () => void;
    const first = new Promise<void>((resolve) => (readFirst = resolve));
    const fetch = createInMemoryFetch(async (_req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      await first;
      res.end('data: two\n\n');
    }, ORIGIN);
    const response = await fetch(`${ORIGIN}/sse`);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const one = await reader.read();
    assert.equal(decoder.decode(one.value), 'data: one\n\n');
    readFirst();
    let rest = '';
    for (let i = 0; i < 10; i++) {
      const next = await reader.read();
      if (next.done) break;
      rest += decoder.decode(next.value);
    }
    assert.equal(rest, 'data: two\n\n');
  });

  it('aborts: the caller gets the signal reason and the handler sees the connection close', async () => {
    let closed!: () => void;
    const handlerSawClose = new Promise<void>((resolve) => (closed = resolve));
    const fetch = createInMemoryFetch((_req: IncomingMessage, res: ServerResponse) => {
      res.on('close', closed);
      res.writeHead(200).write('partial');
    }, ORIGIN);
    const controller = new AbortController();
    const response = await fetch(`${ORIGIN}/slow`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const reason = new Error('stop');
    controller.abort(reason);
    await assert.rejects(reader.read(), (error) => error === reason);
    await handlerSawClose;
    await assert.rejects(fetch(`${ORIGIN}/slow`, { signal: controller.signal }), (error) => error === reason);
  });

  it('refuses another origin without calling the handler', async () => {
    let calls = 0;
    const fetch = createInMemoryFetch((_req: IncomingMessage, res: ServerResponse) => {
      calls++;
      res.end();
    }, ORIGIN);
    await assert.rejects(fetch('http://seller.example/a2a'), /seller\.example is not http:\/\/127\.0\.0\.1/);
    await assert.rejects(fetch('http://127.0.0.1:8080/a2a'), TypeError);
    assert.equal(calls, 0);
  });

  it('answers 500 when the handler throws before answering', async () => {
    const fetch = createInMemoryFetch(() => {
      throw new Error('boom');
    }, ORIGIN);
    assert.equal((await fetch(`${ORIGIN}/`)).status, 500);
  });
});
