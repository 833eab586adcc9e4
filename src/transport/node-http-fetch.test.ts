import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createNodeHttpFetch, unlessGlobalFetchChanged } from './node-http-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  port: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A loopback server whose handler each test sets; it records every request it reads. */
async function startServer(): Promise<{ base: string; seen: Seen[]; handle: (h: Handler) => void; server: Server }> {
  const seen: Seen[] = [];
  let handler: Handler = (_req, res) => res.end('ok');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        port: req.socket.remotePort ?? 0,
      });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, server, handle: (h) => (handler = h) };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('createNodeHttpFetch', () => {
  let a: Awaited<ReturnType<typeof startServer>>;
  let b: Awaited<ReturnType<typeof startServer>>;
  const http = createNodeHttpFetch();
  const f = http.fetch;
  before(async () => {
    a = await startServer();
    b = await startServer();
  });
  after(async () => {
    http.close();
    await closeServer(a.server);
    await closeServer(b.server);
  });

  it('answers the status, status text, URL and headers, duplicates kept', async () => {
    a.handle((_req, res) => {
      res.writeHead(201, 'Made', [
        ['set-cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['x-twice', 'one'],
        ['x-twice', 'two'],
        ['content-type', 'application/json'],
      ]);
      res.end('{"ok":true}');
    });
    const response = await f(`${a.base}/mcp?q=1`);
    assert.equal(response.status, 201);
    assert.equal(response.statusText, 'Made');
    assert.equal(response.ok, true);
    assert.equal(response.url, `${a.base}/mcp?q=1`);
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.equal(response.headers.get('x-twice'), 'one, two');
    assert.deepEqual(await response.json(), { ok: true });
  });

  it('sends the method, headers and a string or byte body with its length', async () => {
    a.handle((_req, res) => res.end());
    await f(`${a.base}/post`, {
      method: 'post',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: '{"é":1}',
    });
    await f(`${a.base}/bytes`, {
      method: 'PUT',
      headers: new Headers({ 'x-b': '2' }),
      body: new Uint8Array([104, 105]),
    });
    const [post, put] = a.seen.slice(-2);
    assert.equal(post?.method, 'POST');
    assert.equal(post?.headers['content-type'], 'application/json');
    assert.equal(post?.headers['x-api-key'], 'k');
    assert.equal(post?.headers['content-length'], String(Buffer.byteLength('{"é":1}')));
    assert.equal(post?.body, '{"é":1}');
    assert.equal(put?.method, 'PUT');
    assert.equal(put?.headers['x-b'], '2');
    assert.equal(put?.body, 'hi');
  });

  it('gives no body for 204 and HEAD', async () => {
    a.handle((_req, res) => res.writeHead(204).end());
    assert.equal((await f(a.base)).body, null);
    a.handle((_req, res) => res.writeHead(200, { 'content-length': '5' }).end());
    assert.equal((await f(a.base, { method: 'HEAD' })).body, null);
  });

  it('streams an SSE body: the first event is read before the response ends', async () => {
    let second: () => void = () => undefined;
    a.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      second = () => res.end('data: two\n\n');
    });
    const response = await f(a.base, { method: 'POST', body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    assert.equal(decoder.decode(first.value), 'data: one\n\n');
    second();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value);
    assert.equal(rest, 'data: two\n\n');
  });

  it('inflates a gzip body', async () => {
    a.handle((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('hello gzip')));
    assert.equal(await (await f(a.base)).text(), 'hello gzip');
  });

  it('rejects with the signal reason when aborted before the request, sending nothing', async () => {
    const before = a.seen.length;
    const reason = new Error('stop now');
    await assert.rejects(f(a.base, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
    assert.equal(a.seen.length, before);
  });

  it('rejects with the signal reason when aborted while waiting for the answer', async () => {
    a.handle(() => undefined); // never answers
    const controller = new AbortController();
    const reason = new DOMException('caller gave up', 'AbortError');
    const pending = f(a.base, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(pending, (e) => e === reason);
  });

  it('errors the body with the signal reason when aborted mid-body', async () => {
    a.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    });
    const controller = new AbortController();
    const response = await f(a.base, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const reason = new Error('deadline');
    controller.abort(reason);
    await assert.rejects(reader.read(), (e) => e === reason);
  });

  it('leaves no listener on a long-lived signal once a body is read, cancelled or empty', async () => {
    // A transport passes one signal to every request (the MCP SDK does): a listener left per
    // request piles up (MaxListenersExceededWarning past 1,500, and each add walks the list).
    const controller = new AbortController();
    a.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setTimeout(() => res.end('data: two\n\n'), 20);
    });
    const read = await f(a.base, { method: 'POST', body: '{}', signal: controller.signal });
    await read.text();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'read to its end');
    const cancelled = await f(a.base, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = (cancelled.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'cancelled');
    a.handle((_req, res) => res.writeHead(202).end());
    await (await f(a.base, { method: 'POST', body: '{}', signal: controller.signal })).body?.cancel();
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'empty, cancelled unread');
  });

  it('errors the body when the server drops the connection mid-body', async () => {
    a.handle((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.destroy(), 20);
    });
    const response = await f(a.base);
    await assert.rejects(response.text(), TypeError);
  });

  it('rejects a refused connection as fetch does: TypeError with the socket code as cause', async () => {
    const closed = await startServer();
    await closeServer(closed.server);
    await assert.rejects(f(closed.base), (e: unknown) => {
      assert.ok(e instanceof TypeError);
      assert.equal((e.cause as { code?: string }).code, 'ECONNREFUSED');
      return true;
    });
  });

  it('follows a redirect within the origin, keeping method and body for 307', async () => {
    a.handle((req, res, body) => {
      if (req.url === '/old') return res.writeHead(307, { location: '/new' }).end();
      res.end(`${req.method} ${req.url} ${body}`);
    });
    const response = await f(`${a.base}/old`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: 'x' });
    assert.equal(await response.text(), 'POST /new x');
    assert.equal(response.url, `${a.base}/new`);
    assert.equal(response.redirected, true);
    assert.equal(a.seen.at(-1)?.headers['authorization'], 'Bearer t');
  });

  it('turns a POST into a GET without body on 303', async () => {
    a.handle((req, res, body) => {
      if (req.url === '/form') return res.writeHead(303, { location: '/done' }).end();
      res.end(`${req.method} ${body}`);
    });
    const response = await f(`${a.base}/form`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    assert.equal(await response.text(), 'GET ');
    assert.equal(a.seen.at(-1)?.headers['content-type'], undefined);
  });

  it('does not follow a redirect to another origin: the 3xx comes back and nothing is sent there', async () => {
    const before = b.seen.length;
    a.handle((_req, res) => res.writeHead(307, { location: `${b.base}/mcp` }).end('moved'));
    const response = await f(`${a.base}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer secret', 'x-api-key': 'secret' },
      body: '{}',
    });
    assert.equal(response.status, 307);
    assert.equal(response.headers.get('location'), `${b.base}/mcp`);
    assert.equal(b.seen.length, before);
  });

  it("answers the 3xx for redirect 'manual' and rejects for 'error'", async () => {
    a.handle((_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    const manual = await f(`${a.base}/x`, { redirect: 'manual' });
    assert.equal(manual.status, 302);
    assert.equal(manual.headers.get('location'), '/elsewhere');
    await assert.rejects(f(`${a.base}/x`, { redirect: 'error' }), TypeError);
    assert.equal(a.seen.at(-1)?.url, '/x');
  });

  it('reuses one kept-alive connection, and close() ends it', async () => {
    const own = createNodeHttpFetch();
    const sockets = new Set<Socket>();
    let ended = 0;
    const onConnection = (socket: Socket): void => {
      sockets.add(socket);
      socket.on('close', () => ended++);
    };
    b.server.on('connection', onConnection);
    try {
      b.handle((_req, res) => res.end('ok'));
      await (await own.fetch(b.base)).text();
      await (await own.fetch(b.base)).text();
      assert.equal(sockets.size, 1);
      assert.equal(b.seen.at(-1)?.port, b.seen.at(-2)?.port);
      own.close();
      for (let i = 0; i < 100 && ended === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(ended, 1);
    } finally {
      b.server.off('connection', onConnection);
      own.close();
    }
  });
});

describe('createNodeHttpFetch keep-alive', () => {
  it("drops an idle connection a second before the server's Keep-Alive timeout, not reusing it as the server closes it", async () => {
    const server = await startServer();
    server.server.keepAliveTimeout = 3_000; // answers carry `Keep-Alive: timeout=3`
    const connections = new Set<Socket>();
    server.server.on('connection', (socket: Socket) => connections.add(socket));
    const own = createNodeHttpFetch();
    try {
      await (await own.fetch(server.base)).text();
      await new Promise((resolve) => setTimeout(resolve, 2_300));
      await (await own.fetch(server.base)).text();
      assert.equal(connections.size, 2);
    } finally {
      own.close();
      await closeServer(server.server);
    }
  });
});

describe('createNodeHttpFetch over https', () => {
  const openssl = spawnSync('openssl', ['version']).status === 0;

  it('checks the certificate against the default CAs: a self-signed one is refused', { skip: !openssl }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adcp-node-fetch-'));
    const http = createNodeHttpFetch();
    try {
      const made = spawnSync('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]);
      assert.equal(made.status, 0, String(made.stderr));
      const server = createTlsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_req, res) => res.end('secret'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        await assert.rejects(http.fetch(url), (e: unknown) => {
          assert.ok(e instanceof TypeError);
          assert.match(String((e.cause as { code?: string }).code), /SELF_SIGNED|UNABLE_TO_VERIFY/);
          return true;
        });
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      http.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('unlessGlobalFetchChanged', () => {
  const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
  const g = globalThis as unknown as Record<symbol, unknown>;

  it("sends through its own fetch while the global fetch is Node's, else through the global one", async () => {
    const calls: string[] = [];
    const own: typeof fetch = () => {
      calls.push('own');
      return Promise.resolve(new Response('own'));
    };
    const send = unlessGlobalFetchChanged(own);
    await send('http://127.0.0.1:1/');
    assert.deepEqual(calls, ['own']);
    const original = globalThis.fetch;
    globalThis.fetch = () => {
      calls.push('replaced');
      return Promise.resolve(new Response('replaced'));
    };
    try {
      await send('http://127.0.0.1:1/');
    } finally {
      globalThis.fetch = original;
    }
    assert.deepEqual(calls, ['own', 'replaced']);
    await send('http://127.0.0.1:1/');
    assert.deepEqual(calls, ['own', 'replaced', 'own']);
  });

  it('sends through the global fetch when the application set an undici dispatcher (a proxy)', async () => {
    new Headers(); // Node's undici installs its default dispatcher
    const saved = g[DISPATCHER];
    const calls: string[] = [];
    const own: typeof fetch = () => {
      calls.push('own');
      return Promise.resolve(new Response('own'));
    };
    class ProxyAgent {
      dispatch(): boolean {
        throw new Error('proxy refused');
      }
    }
    g[DISPATCHER] = new ProxyAgent();
    try {
      await assert.rejects(unlessGlobalFetchChanged(own)('http://127.0.0.1:1/'));
    } finally {
      g[DISPATCHER] = saved;
    }
    // Node's fetch went to the application's dispatcher (which refused), never to `own`.
    assert.equal(calls.includes('own'), false);
    await unlessGlobalFetchChanged(own)('http://127.0.0.1:1/');
    assert.equal(calls.at(-1), 'own');
  });
});
