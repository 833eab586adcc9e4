import { abortReason } from '../../transport/abort-reason.js';
import type { AbortSource } from '../../transport/deadline-signal.js';

/**
 * What the HTTP layer needs to know about the MCP request it is carrying: the byte cap of the
 * call, the call's own abort signal, and a way to fail the call at once (an SSE answer that runs
 * over the cap errors inside the SDK's stream reader, where the SDK would otherwise just wait).
 */
export interface CallContext {
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  fail(error: Error): void;
  /** A JSON-RPC `error` object read from a non-2xx HTTP answer (rate-limit middleware...). */
  rpcError?: unknown;
  /** The HTTP status of a non-2xx answer, and its `Retry-After` in seconds when readable. */
  httpStatus?: number;
  retryAfterSeconds?: number;
  /** The `WWW-Authenticate: Signature` challenge of a non-2xx answer, for its request-signing code. */
  challenge?: string;
  /** Set once the request has its outcome. */
  settled?: boolean;
}

/** One MCP request in flight: its context, a promise that rejects when it fails, and cleanup. */
export interface CallScope {
  readonly context: CallContext;
  /** Rejects with the failure (overflow, abort, timeout); never resolves. */
  readonly failed: Promise<never>;
  end(): void;
}

/**
 * Opens a scope with its own AbortController, linked to the caller's `parent` (a signal, or the
 * call's deadline, which then needs no AbortController of its own). The SDK adds an `abort`
 * listener to every signal it is given and never removes it, so it must only ever see this
 * per-request signal, never a long-lived one.
 */
export function openCallScope(maxBytes: number, parent?: AbortSignal | AbortSource): CallScope {
  const controller = new AbortController();
  let reject: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, rej) => {
    reject = rej;
  });
  void failed.catch(() => undefined);
  const onParentAbort = (): void => {
    const error = abortReason(parent?.reason);
    controller.abort(error);
    reject(error);
  };
  let unlisten: (() => void) | undefined;
  if (parent?.aborted === true) onParentAbort();
  else if (parent instanceof AbortSignal) {
    parent.addEventListener('abort', onParentAbort, { once: true });
    unlisten = () => parent.removeEventListener('abort', onParentAbort);
  } else if (parent !== undefined) unlisten = parent.onAbort(onParentAbort);
  const context: CallContext = {
    maxBytes,
    signal: controller.signal,
    fail(error) {
      controller.abort(error);
      reject(error);
    },
  };
  return {
    context,
    failed,
    end() {
      context.settled = true;
      unlisten?.();
    },
  };
}

/** A request of a call, as the HTTP layer finds it: the call and the request's JSON-RPC id. */
export interface CallRequest {
  call: CallContext;
  requestId: number | string;
}

/**
 * The requests one MCP transport has sent on behalf of calls, by JSON-RPC id, so that its `fetch`
 * finds the call a request belongs to (its cap, signal and failure). The SDK hands a request to
 * the transport synchronously inside `client.request()`, where `McpSession.run` knows the call;
 * the transport then awaits before it fetches, so the fetch finds the call again by the id in the
 * body it sends. Nothing process-wide: no AsyncLocalStorage, whose promise hooks would slow every
 * `await` of the process on Node 20. Ids are unique per SDK client, and each transport has its own.
 */
export class RequestLedger {
  readonly #calls = new Map<number | string, CallContext>();

  /** Request `id` belongs to `call` (until `release(call)`). */
  add(id: number | string, call: CallContext): void {
    this.#calls.set(id, call);
  }

  /** Forgets every request of `call` (its request is over). */
  release(call: CallContext): void {
    for (const [id, owner] of this.#calls) if (owner === call) this.#calls.delete(id);
  }

  /** The call request a `fetch` body carries, when it is one: a request sent by a call. */
  find(body: unknown): CallRequest | undefined {
    if (this.#calls.size === 0 || typeof body !== 'string') return undefined;
    const requestId = requestIdOf(body);
    const call = requestId === undefined ? undefined : this.#calls.get(requestId);
    return call === undefined || requestId === undefined ? undefined : { call, requestId };
  }
}

/**
 * The JSON-RPC id of the request `body` carries, or `undefined` when it carries none (a
 * notification, an answer to the server, not JSON). The SDK writes a request as
 * `{"method":...,"jsonrpc":"2.0","id":N}` (JSON.stringify of `{ ...request, jsonrpc, id }`): N is
 * read from the end without parsing the body. Any other shape is parsed.
 */
export function requestIdOf(body: string): number | string | undefined {
  if (body.startsWith('{"method":') && body.endsWith('}')) {
    const at = body.lastIndexOf(',"id":');
    // A valid JSON text ending in `,"id":<digits>}` ends with the top-level key "id": a quote
    // inside a string is escaped, so `,"id":` cannot be the end of a string value.
    if (at > 0 && body.length - at - 7 <= 15 && /^\d+$/.test(body.slice(at + 6, -1))) {
      return Number(body.slice(at + 6, -1));
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const message = parsed as Record<string, unknown>;
  const id = message['id'];
  return typeof message['method'] === 'string' && (typeof id === 'number' || typeof id === 'string') ? id : undefined;
}
