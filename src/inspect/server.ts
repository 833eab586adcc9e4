import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { isPlainObject } from '../core/plain-object.js';
import type { JsonObject } from '../core/types.js';
import { readNodeBody } from '../transport/read-node-body.js';
import { MemoryDedupStore } from '../store/memory-dedup-store.js';
import { Inspector, type AgentConfig, type InspectorOptions, type StoryboardRunRequest } from './inspector.js';
import type { WebhookHandler } from '../webhooks/handler-types.js';

/** The page's files: beside this module, in `src/inspect/page/` or `dist/inspect/page/`. */
export const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
const PAGE_FILES = /^[a-z0-9-]+\.(js|css|svg)$/;
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};
/** The page may load and call only its own origin: nothing leaves the machine from the browser. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
const MAX_API_BODY = 1024 * 1024;

export interface InspectServerOptions extends Partial<InspectorOptions> {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1; the inspector answers only loopback Host names. */
  host?: string;
  /** Agents to open with, in order (the first is selected). */
  agents?: AgentConfig[];
}

export interface RunningInspector {
  /** The page: `http://127.0.0.1:PORT/`. */
  url: string;
  inspector: Inspector;
  close(): Promise<void>;
}

/**
 * Starts the inspector: the page and its JSON API on one loopback port, with the webhook receiver
 * at `/webhooks/{call id}` (HMAC-SHA256 with a secret made for this run, registered by each call
 * that asks for webhooks). Requests whose Host is not this loopback address are refused (no DNS
 * rebinding), API writes need a JSON body from this origin (no cross-site forms).
 */
export async function startInspector(options: InspectServerOptions = {}): Promise<RunningInspector> {
  const inspector = new Inspector({
    historyPath: options.historyPath ?? ':memory:',
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.followMs !== undefined ? { followMs: options.followMs } : {}),
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.compliance !== undefined ? { compliance: options.compliance } : {}),
    ...(options.storyboardBudgetMs !== undefined ? { storyboardBudgetMs: options.storyboardBudgetMs } : {}),
  });
  try {
    // Named before listening: an agent the inspector refuses (TypeError) leaves no port open.
    for (const agent of options.agents ?? []) await inspector.addAgent(agent);
    const webhookCall = new AsyncLocalStorage<string>();
    // One receiver per way of verifying (the HMAC secret of this run, or an agent's JWKS), each
    // loaded with the first delivery it takes, not with the page.
    const receivers = new Map<string, Promise<WebhookHandler>>();
    const receiverFor = (callId: string): Promise<WebhookHandler> => {
      const route = inspector.webhookRouteOf(callId);
      const key = `${route.jwks === undefined ? 'hmac' : `rfc9421 ${route.jwks.url}`} ${route.release ?? ''}`;
      let receiver = receivers.get(key);
      if (receiver === undefined) {
        receiver = makeReceiver(route);
        receivers.set(key, receiver);
      }
      return receiver;
    };
    const makeReceiver = async ({
      jwks,
      release,
    }: {
      jwks?: { url: string; agentUrl: string };
      release?: string;
    }): Promise<WebhookHandler> => {
      const { createWebhookHandler } = await import('../webhooks/create-webhook-handler.js');
      return createWebhookHandler({
        signature:
          jwks === undefined
            ? { scheme: 'hmac', secret: inspector.webhookSecret }
            : { scheme: 'rfc9421', jwks: jwks.url },
        ...(jwks !== undefined ? { agent: jwks.agentUrl } : {}),
        // The envelope rules of the release the agent speaks (a 3.0 seller may omit operation_id).
        ...(release !== undefined ? { adcpVersion: release } : {}),
        dedup: new MemoryDedupStore(),
        sweepIntervalMs: 0,
        onEvent: (event) => {
          inspector.recordWebhook(webhookCall.getStore(), {
            at: Date.now(),
            outcome: 'accepted',
            scheme: event.sender.scheme,
            ...(event.sender.keyid !== undefined ? { keyid: event.sender.keyid } : {}),
            ...(event.status !== null ? { status: event.status } : {}),
            ...(event.message !== undefined ? { message: event.message } : {}),
            ...(event.operationId !== undefined ? { operationId: event.operationId } : {}),
            ...(event.taskId !== undefined ? { taskId: event.taskId } : {}),
            payload: event.payload,
          });
        },
        onReject: (rejection) => {
          inspector.recordWebhook(webhookCall.getStore(), {
            at: Date.now(),
            outcome: 'refused',
            httpStatus: rejection.status,
            reason: rejection.reason,
            ...(rejection.detail !== undefined ? { detail: rejection.detail } : {}),
          });
        },
        onActivity: (event) => {
          if (event.type === 'webhook' && event.direction === 'received' && event.outcome === 'duplicate')
            inspector.recordWebhook(webhookCall.getStore(), {
              at: Date.now(),
              outcome: 'duplicate',
              httpStatus: event.httpStatus,
              reason: event.reason,
            });
        },
      });
    };
    const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const hook = /^\/webhooks\/([0-9a-f-]{36})$/.exec(path);
      if (hook !== null) {
        const callId = hook[1]!;
        receiverFor(callId).then(
          (handler) => webhookCall.run(callId, () => handler.node(req, res)),
          (error: unknown) => send(res, 500, { error: { code: 'internal', message: messageOf(error) } }),
        );
        return;
      }
      void route(inspector, origin, req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, 500, { error: { code: 'internal', message: messageOf(error) } });
        else res.end();
      });
    });
    const streams = new Set<ServerResponse>();
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === '/api/events') {
        streams.add(res);
        res.once('close', () => streams.delete(res));
      }
    });
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => done());
    });
    const { port, address } = server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    const origin = `http://${host}:${port}`;
    inspector.webhookBase = `${origin}/webhooks/`;
    return {
      url: `${origin}/`,
      inspector,
      async close() {
        for (const receiver of receivers.values()) (await receiver.catch(() => undefined))?.close();
        for (const res of streams) res.end();
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
        await inspector.close();
      },
    };
  } catch (error) {
    await inspector.close();
    throw error;
  }
}

async function route(inspector: Inspector, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', origin);
  if (!hostAllowed(req.headers.host, origin)) {
    return send(res, 421, {
      error: { code: 'wrong_host', message: 'the inspector answers its loopback address only' },
    });
  }
  const method = req.method ?? 'GET';
  const path = url.pathname;
  if (method === 'GET' && (path === '/' || path === '/index.html')) return sendFile(res, 'index.html');
  if (method === 'GET' && path.startsWith('/page/')) {
    const name = path.slice('/page/'.length);
    if (!PAGE_FILES.test(name)) return send(res, 404, { error: { code: 'not_found', message: 'no such file' } });
    return sendFile(res, name);
  }
  if (!path.startsWith('/api/')) return send(res, 404, { error: { code: 'not_found', message: 'no such page' } });
  if (method === 'GET' && path === '/api/events') return events(inspector, res);

  let body: JsonObject = {};
  if (method === 'POST') {
    // A JSON body from this origin only: a cross-site form cannot send one, and other origins get no CORS.
    const type = req.headers['content-type'] ?? '';
    const from = req.headers.origin;
    if (!type.startsWith('application/json') || (from !== undefined && from !== origin)) {
      return send(res, 403, { error: { code: 'forbidden', message: 'JSON from the inspector page only' } });
    }
    let parsed: unknown;
    try {
      const bytes = await readNodeBody(req, MAX_API_BODY);
      if (bytes === 'too_large') throw new Error('larger than 1 MiB');
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      return send(res, 400, { error: { code: 'bad_body', message: `not a JSON body: ${messageOf(error)}` } });
    }
    if (!isPlainObject(parsed)) return send(res, 400, { error: { code: 'bad_body', message: 'a JSON object' } });
    body = parsed;
  } else if (method !== 'GET') return send(res, 405, { error: { code: 'method', message: 'GET or POST' } });

  try {
    const answer = await api(inspector, method, path, url.searchParams, body, res);
    if (answer !== undefined) send(res, 200, answer);
  } catch (error) {
    const status = error instanceof RangeError ? 404 : error instanceof TypeError ? 400 : 500;
    send(res, status, {
      error: {
        code: status === 404 ? 'not_found' : status === 400 ? 'bad_request' : 'internal',
        message: messageOf(error),
      },
    });
  }
}

async function api(
  inspector: Inspector,
  method: string,
  path: string,
  query: URLSearchParams,
  body: JsonObject,
  res: ServerResponse,
): Promise<unknown> {
  const parts = path.split('/').slice(2); // ['agents', id, 'discover']
  const [room, id, action] = parts;
  if (method === 'GET' && path === '/api/state')
    return {
      agents: inspector.agents(),
      webhookBase: inspector.webhookBase,
      historyPath: inspector.history.path,
      storyboards: inspector.storyboards,
      storyboardBudgetSeconds: inspector.storyboardBudgetSeconds,
    };
  if (room === 'agents') {
    if (method === 'POST' && id === undefined) return inspector.addAgent(agentConfig(body));
    if (id === undefined) throw new RangeError('no agent');
    if (method === 'POST' && action === 'discover') return inspector.discover(id);
    if (method === 'GET' && action === 'schema') return inspector.schema(id, query.get('tool') ?? '');
    if (method === 'POST' && action === 'validate')
      return inspector.validate(id, stringOf(body['tool'], 'tool'), objectOf(body['args'], 'args'));
    if (method === 'POST' && action === 'checks') return { checks: await inspector.checks(id) };
    if (method === 'POST' && action === 'storyboards') return inspector.runStoryboards(id, storyboardRunOf(body));
  }
  if (room === 'calls') {
    if (method === 'POST' && id === undefined) {
      return inspector.call({
        agentId: stringOf(body['agentId'], 'agentId'),
        tool: stringOf(body['tool'], 'tool'),
        args: objectOf(body['args'] ?? {}, 'args'),
        webhook: body['webhook'] === true,
        mcpTask: body['mcpTask'] === true,
        force: body['force'] === true,
        ...(typeof body['continueOf'] === 'string' ? { continueOf: body['continueOf'] } : {}),
      });
    }
    if (id === undefined) throw new RangeError('no call');
    if (method === 'GET' && action === undefined) {
      const call = inspector.getCall(id);
      if (call === undefined) throw new RangeError(`no call ${id}`);
      return call;
    }
    if (method === 'POST' && action === 'cancel') return inspector.cancel(id);
  }
  if (room === 'history' && method === 'GET') {
    if (id === undefined) return { path: inspector.history.path, calls: inspector.history.list() };
    const entry = inspector.history.get(id);
    if (entry === undefined) throw new RangeError(`no call ${id}`);
    return entry;
  }
  if (room === 'history' && method === 'POST' && id === 'clear') {
    inspector.history.clear();
    return { ok: true };
  }
  if (room === 'export' && method === 'GET') {
    const file = JSON.stringify(inspector.history.export(), null, 2);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="adcp-inspect-${new Date().toISOString().slice(0, 10)}.json"`,
      'cache-control': 'no-store',
    });
    res.end(file);
    return undefined;
  }
  throw new RangeError(`no route ${method} ${path}`);
}

/** The page's live stream: every change to an agent or a call, as Server-Sent Events. */
function events(inspector: Inspector, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write(': inspector events\n\n');
  const unsubscribe = inspector.subscribe((event) => {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  });
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
  ping.unref();
  res.once('close', () => {
    clearInterval(ping);
    unsubscribe();
  });
}

function agentConfig(body: JsonObject): AgentConfig {
  const url = stringOf(body['url'], 'url');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(
      `'${url.slice(0, 200)}' is not a URL; give the agent's address, like http://127.0.0.1:3000/mcp`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('the agent URL must be http(s)');
  const protocol = body['protocol'] ?? 'auto';
  if (protocol !== 'mcp' && protocol !== 'a2a' && protocol !== 'auto')
    throw new TypeError('protocol: mcp, a2a or auto');
  const config: AgentConfig = { url: parsed.href, protocol };
  if (typeof body['auth'] === 'string' && body['auth'] !== '') config.auth = body['auth'];
  if (typeof body['webhookJwks'] === 'string' && body['webhookJwks'] !== '') config.webhookJwks = body['webhookJwks'];
  return config;
}

const RUN_OPTIONS = new Set([
  'ids',
  'webhooks',
  'allowHttp',
  'brandJsonUrl',
  'rateLimitTrip',
  'seededState',
  'budgetSeconds',
  'signingVectors',
]);

/** A storyboard run from the page: its ids and the runner's options (checked by the inspector). */
function storyboardRunOf(body: JsonObject): StoryboardRunRequest {
  const unknown = Object.keys(body).find((key) => !RUN_OPTIONS.has(key));
  if (unknown !== undefined)
    throw new TypeError(`unknown storyboard run option '${unknown.slice(0, 50)}' (${[...RUN_OPTIONS].join(', ')})`);
  const ids = idsOf(body['ids']);
  const request: StoryboardRunRequest = { ...body, ...(ids === undefined ? {} : { ids }) };
  return request;
}

/** Storyboard ids or files from the page: absent, or a list of short names. */
function idsOf(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length > 200 ||
    !value.every((v) => typeof v === 'string' && /^[\w./-]{1,200}$/.test(v))
  )
    throw new TypeError('ids: a list of storyboard ids (letters, digits, _ . / -)');
  return value as string[];
}

function stringOf(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

function objectOf(value: unknown, name: string): JsonObject {
  if (!isPlainObject(value)) throw new TypeError(`${name} must be a JSON object`);
  return value;
}

/** Loopback names of this port only: a page elsewhere that rebinds its name to 127.0.0.1 is refused. */
function hostAllowed(host: string | undefined, origin: string): boolean {
  if (host === undefined) return false;
  const port = new URL(origin).port;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

async function sendFile(res: ServerResponse, name: string): Promise<void> {
  let content: Buffer;
  try {
    content = await readFile(join(PAGE_DIR, name));
  } catch {
    return send(res, 404, { error: { code: 'not_found', message: 'no such file' } });
  }
  res.writeHead(200, {
    'content-type': TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
    'content-length': String(content.length),
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  });
  res.end(content);
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
