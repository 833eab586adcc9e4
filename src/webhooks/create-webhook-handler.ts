import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveSignature } from './authenticate-webhook.js';
import { readCappedBody } from '../transport/capped-body.js';
import { readNodeBody } from '../transport/read-node-body.js';
import {
  processDelivery,
  type DeliveryAnswer,
  type DeliveryContext,
  type IncomingDelivery,
} from './process-delivery.js';
import { OperationSignals } from './wait-for-operation.js';
import type { WebhookHandler, WebhookHandlerOptions } from './handler-types.js';
import { checkActivityListener } from '../telemetry/activity.js';
import { traceStore } from '../telemetry/traced-store.js';
import { traceWebhookReceive } from '../telemetry/webhook-tracing.js';

const DEFAULT_MAX_BODY = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a webhook receiver (webhooks.md): verifies each delivery (RFC 9421 or legacy HMAC),
 * parses it strictly, de-duplicates it by `idempotency_key` in `dedup`, advances the operation it
 * names in `operations`, runs `onEvent`, and answers 200 only after `onEvent` finished. Throws a
 * TypeError/RangeError at creation for a missing or weak signature configuration.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const signature = resolveSignature(options.signature);
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
  checkActivityListener('createWebhookHandler', options.onActivity);
  const signals = new OperationSignals();
  const dedup = traceStore(options.dedup, 'dedup');
  const sweepMs = options.sweepIntervalMs ?? 600_000;
  const sweeper = sweepMs > 0 ? setInterval(() => void dedup.sweep().catch(() => undefined), sweepMs) : undefined;
  sweeper?.unref();
  const ctx: DeliveryContext = {
    signature,
    agent: options.agent,
    format: options.format,
    onEvent: options.onEvent,
    resolveA2AOperationId: options.resolveA2AOperationId,
    dedup,
    operations: options.operations === undefined ? undefined : traceStore(options.operations, 'operations'),
    leaseMs: options.leaseMs ?? 60_000,
    dedupTtlMs: options.dedupTtlMs ?? DAY_MS,
    now: options.now ?? Date.now,
    notify: (record) => signals.notify(record),
    validateRelease: options.validate === true ? (options.adcpVersion ?? '3.1') : undefined,
    release: options.adcpVersion,
  };

  const onReject = options.onReject;
  const answer = (result: DeliveryAnswer): DeliveryAnswer => {
    if (result.status >= 400)
      onReject?.({
        status: result.status,
        reason: result.reason,
        ...(result.detail !== undefined ? { detail: result.detail } : {}),
      });
    return result;
  };
  // Both adapters end here: the body read (a failed read is `unreadable_body`, 400), the pipeline
  // (an unexpected throw is `internal_error`, 500), and onReject for every refusal.
  const run = (
    request: Omit<IncomingDelivery, 'body'>,
    readBody: () => Promise<IncomingDelivery['body']>,
  ): Promise<DeliveryAnswer> =>
    traceWebhookReceive(request.headers, options.onActivity, () => receive(request, readBody));
  const receive = async (
    request: Omit<IncomingDelivery, 'body'>,
    readBody: () => Promise<IncomingDelivery['body']>,
  ): Promise<DeliveryAnswer> => {
    let body: IncomingDelivery['body'];
    try {
      body = await readBody();
    } catch {
      return answer({ status: 400, reason: 'unreadable_body' });
    }
    try {
      return answer(await processDelivery(ctx, { ...request, body }));
    } catch (error) {
      return answer({
        status: 500,
        reason: 'internal_error',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const operations = options.operations;
  const operationsOrThrow = () => {
    if (operations === undefined) throw new TypeError('createWebhookHandler: no `operations` store was configured');
    return operations;
  };

  return {
    async fetch(request: Request): Promise<Response> {
      const url = publicOrigin === undefined ? request.url : publicOrigin + pathAndQuery(request.url);
      const wanted = request.method === 'POST' && isJson(request.headers.get('content-type'));
      const result = await run({ method: request.method, url, headers: request.headers }, () =>
        wanted ? readCappedBody(request, maxBodyBytes) : Promise.resolve(Buffer.alloc(0)),
      );
      return new Response(responseBody(result), { status: result.status, headers: responseHeaders(result) });
    },
    node(req: IncomingMessage, res: ServerResponse): void {
      const host = req.headers.host ?? 'localhost';
      const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
      const url = (publicOrigin ?? `${scheme}://${host}`) + (req.url ?? '/');
      const wanted = req.method === 'POST' && isJson(req.headers['content-type']);
      run({ method: req.method ?? 'GET', url, headers: req.headers }, () =>
        wanted ? readNodeBody(req, maxBodyBytes) : Promise.resolve(Buffer.alloc(0)),
      )
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
