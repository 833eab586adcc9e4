import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError, printable } from './args.js';
import type { ListenerEvent } from './format-event.js';
import type { OperationRecord } from '../store/types.js';
import type { ActivityEvent } from '../telemetry/activity.js';

export type { ListenerEvent } from './format-event.js';

export interface WebhookListenerOptions {
  port: number;
  host: string;
  /** Base for a relative `jwksPath`. */
  cwd: string;
  /** Legacy HMAC-SHA256 shared secret; exactly one of `secret` and `jwksPath`. */
  secret?: string;
  /** A JWKS file, or the seller's JWKS URL (https, or loopback http) (RFC 9421 signatures). */
  jwksPath?: string;
  /** Dedup/operations state: SQLite path, `postgres://...`, or in memory when absent. */
  storeUrl?: string;
  onEvent(event: ListenerEvent): void;
  /** Told of every delivery the handler answers: accepted, duplicate or refused (with its reason). */
  onActivity?: (event: ActivityEvent) => void;
  /** Deadline for a request's headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Deadline for a whole request, body included (default 20 s). */
  bodyTimeoutMs?: number;
  /** Requests whose body is still arriving (unauthenticated: not yet checked); past it, 503 (default 64). */
  maxPendingBodies?: number;
}

/** Defaults that bound what unauthenticated clients can hold: a webhook is small and quick. */
export const LISTENER_LIMITS = { headersTimeoutMs: 10_000, bodyTimeoutMs: 20_000, maxPendingBodies: 64 } as const;

export interface WebhookListener {
  /** The URL to give as `push_notification_config.url`. */
  url: string;
  /** Where state lives (`:memory:`, a file, or `host:port/db`). */
  where: string;
  /** Resolves when the operation reaches a final status (webhooks only). */
  waitForOperation(operationId: string, options: { timeoutMs: number }): Promise<OperationRecord>;
  close(): Promise<void>;
}

/**
 * Starts a verifying webhook receiver (the webhooks library's handler on a `node:http` server)
 * at `http://host:port/webhooks`, with its state in the stores `storeUrl` selects.
 */
export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const [{ createWebhookHandler }, { openStoresFromUrl }] = await Promise.all([
    import('../webhooks/index.js'),
    import('../store/pg-open-stores.js'),
  ]);
  const verify =
    options.secret !== undefined ? ({ scheme: 'hmac', secret: options.secret } as const) : await jwksSignature(options);
  const stores = await openStoresFromUrl({ url: options.storeUrl ?? ':memory:', env: {}, sweepIntervalMs: 0 });
  // RFC 9421 nonces go to the same store as de-duplication, so listeners sharing a database
  // also refuse a signature replayed to another of them (in memory: the handler's own cache).
  const signature =
    verify.scheme === 'rfc9421' && stores.replay !== undefined ? { ...verify, replay: stores.replay } : verify;
  try {
    const handler = createHandler(createWebhookHandler, {
      signature,
      dedup: stores.dedup,
      operations: stores.operations,
      onEvent: (event) => {
        const out: ListenerEvent = {
          receivedAt: Date.now(),
          scheme: event.sender.scheme === 'hmac' ? 'hmac-sha256' : event.sender.scheme,
          status: event.status ?? 'unknown',
          payload: event.payload,
        };
        if (event.taskId !== undefined) out.taskId = event.taskId;
        if (event.operationId !== undefined) out.operationId = event.operationId;
        if (event.taskType !== undefined) out.taskType = event.taskType;
        if (event.message !== undefined) out.message = event.message;
        options.onEvent(out);
      },
      ...(options.onActivity !== undefined ? { onActivity: options.onActivity } : {}),
    });
    const server = boundedServer(options, handler.node);
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port, options.host, () => done());
    });
    const { port } = server.address() as AddressInfo;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    return {
      url: `http://${host}:${port}/webhooks`,
      where: stores.where,
      waitForOperation: (operationId, wait) => handler.waitForOperation(operationId, wait),
      async close() {
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
        await stores.close();
      },
    };
  } catch (error) {
    await stores.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(`port ${options.port} is in use; pick another with --port (0 picks a free one).`);
    }
    throw error;
  }
}

/** The handler refuses a weak secret or bad keys with TypeError/RangeError: a usage error here. */
function createHandler<O, H>(create: (options: O) => H, handlerOptions: O): H {
  try {
    return create(handlerOptions);
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError)
      throw new UsageError(error.message.replace(/^createWebhookHandler: /, ''));
    throw error;
  }
}

async function jwksSignature(options: WebhookListenerOptions) {
  const where = options.jwksPath ?? '';
  if (/^https?:\/\//i.test(where)) {
    // The seller's jwks_uri: fetched, cached and refreshed by the webhooks library.
    const { remoteJwks } = await import('../signing/index.js');
    try {
      return { scheme: 'rfc9421', jwks: remoteJwks(where) } as const;
    } catch (error) {
      throw new UsageError(
        `--jwks ${printable(where)}: ${error instanceof Error ? error.message.replace(/^remoteJwks: /, '') : 'refused'}`,
      );
    }
  }
  const path = resolve(options.cwd, where);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `cannot read the JWKS file '${printable(options.jwksPath ?? '')}' (${(error as NodeJS.ErrnoException).code ?? 'not JSON'}).`,
    );
  }
  const keys = Array.isArray(value) ? value : (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new UsageError('the JWKS file must hold {"keys": [...]} with at least one key.');
  return { scheme: 'rfc9421', jwks: { keys } } as const;
}

/**
 * A `node:http` server that keeps slow or stalled clients from holding memory: headers and whole
 * requests have deadlines in seconds (Node answers 408 and closes), checked every second or less;
 * and at most `maxPendingBodies` requests may be receiving their body at once (none of them is
 * authenticated yet). Past that, a request gets 503 with `Retry-After` and its connection closes.
 */
function boundedServer(
  options: WebhookListenerOptions,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const headersTimeout = options.headersTimeoutMs ?? LISTENER_LIMITS.headersTimeoutMs;
  const requestTimeout = Math.max(options.bodyTimeoutMs ?? LISTENER_LIMITS.bodyTimeoutMs, headersTimeout);
  const cap = options.maxPendingBodies ?? LISTENER_LIMITS.maxPendingBodies;
  let pending = 0;
  return createServer(
    { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeout / 4)) },
    (req, res) => {
      if (pending >= cap) {
        const body = JSON.stringify({ ok: false, reason: 'busy' });
        res.writeHead(503, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'retry-after': String(Math.ceil(requestTimeout / 1000)),
          connection: 'close',
        });
        // Closing with the body unread would reset the connection and lose the answer: discard
        // what still arrives (nothing is kept) and hang up shortly after the answer is out.
        req.resume();
        res.end(body, () => setTimeout(() => req.socket.destroy(), 1000).unref());
        return;
      }
      pending += 1;
      let counted = true;
      const release = (): void => {
        if (!counted) return;
        counted = false;
        pending -= 1;
      };
      req.once('end', release);
      req.once('close', release);
      res.once('close', release);
      handle(req, res);
    },
  );
}
