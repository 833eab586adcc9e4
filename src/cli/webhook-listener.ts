import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError, printable } from './args.js';
import type { ListenerEvent } from './format-event.js';
import type { OperationRecord } from '../store/types.js';

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
  onRejected?(reason: string, status: number): void;
}

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
      onReject: (rejection) => options.onRejected?.(rejection.reason, rejection.status),
    });
    const server = createServer((req, res) => handler.node(req, res));
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
    const { remoteJwks } = await import('../webhooks/index.js');
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
