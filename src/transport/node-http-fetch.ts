import {
  Agent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';

/** Redirects followed at most (fetch's own limit). */
const MAX_REDIRECTS = 20;
/** How long a connection may take to open, as undici's fetch allows (node:http has no limit of its own). */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * Idle connections are kept 4 s (undici's default), or a second less than the server's
 * `Keep-Alive: timeout=N` when that is shorter: node's agent reads the hint only under a `timeout`
 * of its own, and a connection reused as the server closes it fails the request (ECONNRESET).
 * The timeout ends idle sockets only; a request in flight is bounded by its signal.
 */
const KEEP_ALIVE = { keepAlive: true, timeout: 4_000 };
/** Statuses whose response has no body (fetch's "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export interface NodeHttpFetch {
  /** A `fetch` for the MCP transports, over `node:http` / `node:https` with keep-alive agents. */
  fetch: typeof fetch;
  /** Destroys the agents' sockets (idle and in use); later requests open new ones. */
  close(): void;
}

/**
 * A fetch over `node:http` and `node:https`, for the MCP client when the user gives no `fetch` of
 * their own. Node's own HTTP parser is native; the global fetch (undici) parses with a WebAssembly
 * build of llhttp that V8 recompiles in the background after the first response (about 220 ms of
 * CPU and 20-30 MB of peak RSS in a process's first call; bench/results/first-answer.md). It does
 * what the MCP client needs of fetch: method, headers, a string or byte body, an AbortSignal
 * (rejecting with its reason, before or during the response), the status, headers (duplicates
 * kept, as `getSetCookie()` shows) and a streaming body as a WHATWG `Response`, gzip, deflate and
 * br bodies inflated. `redirect: 'manual'` answers the 3xx, `'error'` rejects, and the default
 * `'follow'` follows redirects within the request's origin only: a redirect to another origin is
 * answered as the 3xx, so the request's credentials never leave the origin the user sent them to.
 * Connection failures reject with `TypeError('fetch failed')` whose `cause` is the socket error
 * (its `code`), as undici does.
 */
export function createNodeHttpFetch(): NodeHttpFetch {
  let http: Agent | undefined;
  let https: HttpsAgent | undefined;
  let httpsModule: Promise<typeof import('node:https')> | undefined;

  async function agentFor(url: URL): Promise<{ agent: Agent; send: typeof httpRequest }> {
    if (url.protocol === 'http:') return { agent: (http ??= new Agent(KEEP_ALIVE)), send: httpRequest };
    if (url.protocol !== 'https:') throw new TypeError(`fetch failed: unsupported protocol ${url.protocol}`);
    const module = await (httpsModule ??= import('node:https'));
    return { agent: (https ??= new module.Agent(KEEP_ALIVE)), send: module.request };
  }

  async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(input instanceof Request ? input.url : input);
    let method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers ?? request?.headers);
    let body = await bodyBytes(
      init.body !== undefined ? init.body : request === undefined ? null : await request.arrayBuffer(),
    );
    if (body !== null && typeof init.body === 'string' && !headers.has('content-type')) {
      headers.set('content-type', 'text/plain;charset=UTF-8');
    }
    const signal = init.signal ?? request?.signal ?? undefined;
    const mode = init.redirect ?? 'follow';
    for (let redirects = 0; ; redirects++) {
      signal?.throwIfAborted();
      const { agent, send } = await agentFor(url);
      const res = await exchange(send, url, { method, headers: flatten(headers, body), agent }, body, signal);
      const location = res.statusCode !== undefined && isRedirect(res.statusCode) ? res.headers.location : undefined;
      if (location === undefined || mode === 'manual') return toResponse(res, url, method, signal, redirects > 0);
      res.resume();
      if (mode === 'error')
        throw new TypeError('fetch failed', { cause: new Error(`redirect to ${location} refused`) });
      const next = new URL(location, url);
      // A redirect elsewhere is not followed: the 3xx goes back to the caller, the credentials stay.
      if (next.origin !== url.origin) return toResponse(res, url, method, signal, redirects > 0, true);
      if (redirects >= MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('too many redirects') });
      if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode ?? 0) <= 302 && method === 'POST') {
        method = 'GET';
        body = null;
        for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language'])
          headers.delete(name);
      }
      url = next;
    }
  }

  return {
    fetch: nodeFetch,
    close() {
      http?.destroy();
      https?.destroy();
    },
  };
}

/** Sends one request and resolves with its response head; the body is read later. */
function exchange(
  send: typeof httpRequest,
  url: URL,
  options: RequestOptions,
  body: Uint8Array | null,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    const onAbort = (): void => {
      req.destroy();
      reject(signal?.reason);
    };
    try {
      req = send(url, options);
    } catch (error) {
      reject(new TypeError('fetch failed', { cause: error }));
      return;
    }
    if (signal?.aborted === true) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('socket', (socket) => {
      if (!socket.connecting) return; // a kept-alive socket
      const timer = setTimeout(() => req.destroy(connectTimeout(url)), CONNECT_TIMEOUT_MS);
      timer.unref();
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.once('response', (res) => {
      signal?.removeEventListener('abort', onAbort);
      // Seen through 'close' and the body's own listeners; never an uncaught 'error'.
      res.on('error', () => undefined);
      resolve(res);
    });
    req.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted === true ? signal.reason : new TypeError('fetch failed', { cause: error }));
    });
    req.end(body ?? undefined);
  });
}

/** The response as fetch gives it: its URL, whether it was redirected, and a body that streams. */
function toResponse(
  res: IncomingMessage,
  url: URL,
  method: string,
  signal: AbortSignal | undefined,
  redirected: boolean,
  unfollowed = false,
): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new TypeError('fetch failed', { cause: new Error(`invalid HTTP status ${status}`) });
  }
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const empty = NULL_BODY.has(status) || method === 'HEAD' || unfollowed;
  if (empty) res.resume();
  const response = new Response(empty ? null : bodyOf(res, headers, signal), {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
  Object.defineProperties(response, { url: { value: url.href }, redirected: { value: redirected } });
  return response;
}

/** The body as a ReadableStream that pulls from `res` (backpressure), inflated when encoded. */
function bodyOf(res: IncomingMessage, headers: Headers, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const encoding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  let source: NodeJS.ReadableStream | undefined;
  /** Closed, errored or cancelled: nothing more goes to the controller. */
  let done = false;
  /** Set while the body listens to `signal`; every way out (end, error, cancel) takes it off. */
  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      source = res;
      if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate' || encoding === 'br') {
        const zlib = await import('node:zlib');
        const inflate =
          encoding === 'br'
            ? zlib.createBrotliDecompress()
            : encoding === 'deflate'
              ? zlib.createInflate()
              : zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
        res.on('error', (error) => inflate.destroy(error));
        source = res.pipe(inflate);
        source.on('error', () => undefined);
      }
      const fail = (error: unknown): void => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', abort);
        controller.error(error);
      };
      const abort = (): void => {
        fail(signal?.reason);
        res.destroy();
      };
      if (signal?.aborted === true) return abort();
      onAbort = abort;
      signal?.addEventListener('abort', abort, { once: true });
      const from = source;
      from.on('data', (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) from.pause();
      });
      from.on('end', () => {
        if (done) return;
        done = true;
        signal?.removeEventListener('abort', abort);
        controller.close();
      });
      from.on('error', (error) => fail(new TypeError('terminated', { cause: error })));
      res.on('close', () => {
        if (!res.complete) fail(new TypeError('terminated', { cause: new Error('the connection closed mid-body') }));
      });
    },
    pull() {
      source?.resume();
    },
    cancel() {
      done = true;
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      res.destroy();
    },
  });
}

/** The error of a connection that did not open in time, with undici's code (the request was not sent). */
function connectTimeout(url: URL): Error {
  return Object.assign(new Error(`connecting to ${url.host} took over ${CONNECT_TIMEOUT_MS} ms`), {
    code: 'UND_ERR_CONNECT_TIMEOUT',
  });
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** The request's headers for node (one value per name, as fetch sends them) and its length. */
function flatten(headers: Headers, body: Uint8Array | null): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = value;
  });
  if (body !== null) out['content-length'] = String(body.byteLength);
  return out;
}

async function bodyBytes(body: unknown): Promise<Uint8Array | null> {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  throw new TypeError('fetch over node:http takes a string, bytes or a Blob as the request body');
}

/** Where undici (Node's fetch, or the undici package) keeps the global dispatcher. */
const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
let seenFetch: unknown;
let seenFetchIsNodes = false;
let seenDispatcher: unknown;
let seenDispatcherIsPlain = false;

/**
 * `own` (a fetch over node:http) while the global fetch sends as Node's does by default, the
 * global fetch otherwise: when the application has replaced `globalThis.fetch` (a mock, an
 * instrumentation) or set an undici global dispatcher of its own (a proxy, a custom CA, any
 * options), requests keep going the way it chose. Decided per request, cheaply (by identity).
 */
export function unlessGlobalFetchChanged(own: typeof fetch): typeof fetch {
  return (input, init) => (globalFetchIsNodes() ? own(input, init) : globalThis.fetch(input, init));
}

function globalFetchIsNodes(): boolean {
  const current = globalThis.fetch;
  if (current !== seenFetch) {
    seenFetch = current;
    // Node's own fetch loads undici on first use; a replacement is any other function.
    seenFetchIsNodes = typeof current === 'function' && String(current).includes('fetchImpl');
  }
  if (!seenFetchIsNodes) return false;
  const dispatcher = (globalThis as { [DISPATCHER]?: unknown })[DISPATCHER];
  if (dispatcher === undefined) return true;
  if (dispatcher !== seenDispatcher) {
    seenDispatcher = dispatcher;
    seenDispatcherIsPlain = isPlainAgent(dispatcher);
  }
  return seenDispatcherIsPlain;
}

/** Whether `dispatcher` is an undici `Agent` made without options (the default one). */
function isPlainAgent(dispatcher: unknown): boolean {
  if (dispatcher === null || typeof dispatcher !== 'object' || dispatcher.constructor?.name !== 'Agent') return false;
  const key = Object.getOwnPropertySymbols(dispatcher).find((s) => s.description === 'options');
  const options = key === undefined ? undefined : (dispatcher as Record<symbol, unknown>)[key];
  if (options === null || typeof options !== 'object') return false;
  return Object.entries(options).every(([, value]) => value === undefined);
}
