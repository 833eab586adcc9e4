import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateWebhookSecret } from './hmac.js';
import { toJwksSource } from '../signing/jwks.js';
import { remoteJwks } from '../signing/remote-jwks.js';
import { MemoryReplayStore, type ReplayStore } from '../signing/replay-store.js';
import { readCappedBody } from '../transport/capped-body.js';
import { readNodeBody } from '../transport/read-node-body.js';
import { processDelivery, type DeliveryAnswer, type DeliveryContext } from './process-delivery.js';
import { OperationSignals } from './wait-for-operation.js';
import { UNSIGNED_WEBHOOKS, type WebhookHandler, type WebhookHandlerOptions } from './handler-types.js';

const DEFAULT_MAX_BODY = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a webhook receiver (webhooks.md): verifies each delivery (RFC 9421 or legacy HMAC),
 * parses it strictly, de-duplicates it by `idempotency_key` in `dedup`, advances the operation it
 * names in `operations`, runs `onEvent`, and answers 200 only after `onEvent` finished. Throws a
 * TypeError/RangeError at creation for a missing or weak signature configuration.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const signature = checkSignatureConfig(options.signature);
  if (options.dedup === undefined || typeof options.dedup.claim !== 'function') {
    throw new TypeError(
      'createWebhookHandler: pass a `dedup` store (SqliteDedupStore in production, MemoryDedupStore in tests)',
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  if (!(Number.isInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new RangeError('createWebhookHandler: maxBodyBytes must be a positive integer');
  let publicOrigin: string | undefined;
  if (options.publicOrigin !== undefined) {
    const url = new URL(options.publicOrigin);
    if (url.pathname !== '/' || url.search !== '')
      throw new TypeError('createWebhookHandler: publicOrigin is an origin only, like https://buyer.example');
    publicOrigin = url.origin;
  }
  const signals = new OperationSignals();
  const sweepMs = options.sweepIntervalMs ?? 600_000;
  const sweeper =
    sweepMs > 0 ? setInterval(() => void options.dedup.sweep().catch(() => undefined), sweepMs) : undefined;
  sweeper?.unref();
  const ctx: DeliveryContext = {
    options,
    dedup: options.dedup,
    operations: options.operations,
    replay: signature === 'rfc9421' ? replayStoreOf(options.signature) : undefined,
    leaseMs: options.leaseMs ?? 60_000,
    dedupTtlMs: options.dedupTtlMs ?? DAY_MS,
    now: options.now ?? Date.now,
    notify: (record) => signals.notify(record),
  };

  const answer = (result: DeliveryAnswer): DeliveryAnswer => {
    if (result.status >= 400)
      options.onReject?.({
        status: result.status,
        reason: result.reason,
        ...(result.detail !== undefined ? { detail: result.detail } : {}),
      });
    return result;
  };
  const run = async (request: Parameters<typeof processDelivery>[1]): Promise<DeliveryAnswer> => {
    try {
      return answer(await processDelivery(ctx, request));
    } catch (error) {
      return answer({
        status: 500,
        reason: 'internal_error',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const operationsOrThrow = () => {
    if (options.operations === undefined)
      throw new TypeError('createWebhookHandler: no `operations` store was configured');
    return options.operations;
  };

  return {
    async fetch(request: Request): Promise<Response> {
      const url = publicOrigin === undefined ? request.url : publicOrigin + pathAndQuery(request.url);
      const wanted = request.method === 'POST' && isJson(request.headers.get('content-type'));
      const body = wanted ? await readCappedBody(request, maxBodyBytes) : Buffer.alloc(0);
      const result = await run({ method: request.method, url, headers: request.headers, body });
      return new Response(responseBody(result), { status: result.status, headers: responseHeaders(result) });
    },
    node(req: IncomingMessage, res: ServerResponse): void {
      const host = req.headers.host ?? 'localhost';
      const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
      const url = (publicOrigin ?? `${scheme}://${host}`) + (req.url ?? '/');
      const wanted = req.method === 'POST' && isJson(req.headers['content-type']);
      const body = wanted ? readNodeBody(req, maxBodyBytes) : Promise.resolve(Buffer.alloc(0));
      body
        .then((bytes) => run({ method: req.method ?? 'GET', url, headers: req.headers, body: bytes }))
        .catch((): DeliveryAnswer => ({ status: 400, reason: 'unreadable_body' }))
        .then((result) => {
          const text = responseBody(result);
          res.writeHead(result.status, {
            ...responseHeaders(result),
            'content-length': String(Buffer.byteLength(text)),
          });
          if (result.status === 413) res.end(text, () => req.destroy());
          else res.end(text);
        })
        // The answer could not be written (socket gone, headers already sent): drop the connection.
        .catch(() => res.destroy());
    },
    getOperation: (operationId) => operationsOrThrow().get(operationId),
    listOperations: (filter) => operationsOrThrow().list(filter),
    waitForOperation: (operationId, waitOptions) => signals.wait(operationsOrThrow(), operationId, waitOptions),
    close: () => clearInterval(sweeper),
  };
}

function checkSignatureConfig(config: WebhookHandlerOptions['signature']): 'rfc9421' | 'hmac' | 'none' {
  if (config === UNSIGNED_WEBHOOKS) {
    process.emitWarning(
      'adcp-wire: webhook signatures are NOT verified (signature: "none-i-know-this-is-unsafe"); anyone can forge events',
      {
        code: 'ADCP_UNSIGNED_WEBHOOKS',
      },
    );
    return 'none';
  }
  if (config === undefined || config === null || typeof config !== 'object') {
    throw new TypeError(
      `createWebhookHandler: \`signature\` is required: { scheme: 'rfc9421', jwks } or { scheme: 'hmac', secret }; unsigned webhooks need the explicit '${UNSIGNED_WEBHOOKS}'`,
    );
  }
  if (config.scheme === 'hmac') {
    const secrets = Array.isArray(config.secret) ? config.secret : [config.secret];
    if (secrets.length === 0) throw new RangeError('createWebhookHandler: hmac secret list is empty');
    for (const secret of secrets) {
      const check = validateWebhookSecret(secret);
      if (!check.ok) throw new RangeError(`createWebhookHandler: weak webhook secret refused (${check.reason})`);
    }
    return 'hmac';
  }
  if (config.scheme === 'rfc9421') {
    toJwksSource(config.jwks, remoteJwks); // validates the shape, and starts nothing yet
    return 'rfc9421';
  }
  throw new TypeError(
    `createWebhookHandler: unknown signature scheme ${String((config as { scheme?: unknown }).scheme)}`,
  );
}

function replayStoreOf(config: WebhookHandlerOptions['signature']): ReplayStore {
  return typeof config === 'object' && config.scheme === 'rfc9421' && config.replay !== undefined
    ? config.replay
    : new MemoryReplayStore();
}

/** Whether the body is worth reading at all: anything else is refused (405/415) unread. */
function isJson(contentType: string | null | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function pathAndQuery(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

function responseBody(result: DeliveryAnswer): string {
  return result.status < 300 ? `{"ok":true,"result":"${result.reason}"}` : `{"ok":false,"reason":"${result.reason}"}`;
}

function responseHeaders(result: DeliveryAnswer): Record<string, string> {
  return { 'content-type': 'application/json', ...result.headers };
}
