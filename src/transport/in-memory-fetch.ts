import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Duplex, Readable } from 'node:stream';

/** A Node request listener, or an object that serves requests (`AdcpServer.handle`). */
export type InMemoryHandler =
  | ((req: IncomingMessage, res: ServerResponse) => unknown)
  | { handle(req: IncomingMessage, res: ServerResponse): unknown };

/** The address a request appears to come from and go to: loopback, port 80 (no socket is opened). */
const ADDRESS = '127.0.0.1';
const PORT = 80;

/**
 * A `fetch` that serves every request with `handler` in this process, over a pair of in-memory
 * streams carrying real HTTP/1.1 (Node parses both sides, so the handler gets a genuine
 * `IncomingMessage` and `ServerResponse`, streaming answers included). No port is opened. Only
 * `origin` is served: a request to any other origin is refused with a TypeError, as an
 * unreachable host would be. The handler sees the connection as 127.0.0.1:80.
 */
export function createInMemoryFetch(handler: InMemoryHandler, origin: string): typeof fetch {
  const serve = typeof handler === 'function' ? handler : handler.handle.bind(handler);
  const server = createServer((req, res) => {
    void Promise.resolve()
      .then(() => serve(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
  });
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.origin !== origin) {
      throw new TypeError(`in-memory fetch: ${url.origin} is not ${origin}, the only origin this transport serves`);
    }
    request.signal.throwIfAborted();
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const [client, served] = socketPair();
    server.emit('connection', served);
    return new Promise<Response>((resolve, reject) => {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      if (body !== undefined) headers['content-length'] = String(body.byteLength);
      const outgoing = httpRequest(url, {
        method: request.method,
        headers,
        createConnection: () => client,
      });
      let answer: IncomingMessage | undefined;
      // As fetch does: the promise, or the body being read, fails with the signal's reason.
      const abort = () => {
        answer?.destroy(request.signal.reason as Error);
        outgoing.destroy(request.signal.reason as Error);
        reject(request.signal.reason);
      };
      request.signal.addEventListener('abort', abort, { once: true });
      outgoing.on('error', (error) => {
        request.signal.removeEventListener('abort', abort);
        reject(error);
      });
      outgoing.on('response', (res) => {
        answer = res;
        res.on('close', () => request.signal.removeEventListener('abort', abort));
        const noBody = request.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
        if (noBody) res.resume();
        resolve(
          new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status: res.statusCode ?? 500,
            statusText: res.statusMessage ?? '',
            headers: toHeaders(res),
          }),
        );
      });
      outgoing.end(body);
    });
  };
}

function toHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/** Two connected in-memory sockets: what one writes the other reads, with backpressure. */
function socketPair(): [InMemorySocket, InMemorySocket] {
  const a = new InMemorySocket();
  const b = new InMemorySocket();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

class InMemorySocket extends Duplex {
  peer: InMemorySocket | undefined;
  readonly remoteAddress = ADDRESS;
  readonly remotePort = PORT;
  readonly localAddress = ADDRESS;
  readonly localPort = PORT;
  readonly remoteFamily = 'IPv4';
  /** The peer's write waiting for this side to be read. */
  #waiting: (() => void) | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (peer === undefined || peer.destroyed) return done(new Error('in-memory socket: the other end is closed'));
    if (peer.push(chunk)) done();
    else peer.#waiting = () => done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.peer?.push(null);
    done();
  }

  override _read(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const peer = this.peer;
    if (peer !== undefined && !peer.destroyed) peer.destroy();
    this.#waiting = undefined;
    done(error);
  }

  address(): { address: string; family: string; port: number } {
    return { address: ADDRESS, family: 'IPv4', port: PORT };
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}
