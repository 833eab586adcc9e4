import { AsyncLocalStorage } from 'node:async_hooks';
import { abortReason } from '../transport/abort-reason.js';

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
 * Opens a scope with its own AbortController, linked to the caller's `parent` signal. The SDK
 * adds an `abort` listener to every signal it is given and never removes it, so it must only ever
 * see this per-request signal, never a long-lived one.
 */
export function openCallScope(maxBytes: number, parent?: AbortSignal): CallScope {
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
  if (parent?.aborted === true) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
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
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Which call the code running now belongs to, and, inside the SDK's `transport.send` of a
 * request, that request's JSON-RPC id. Carried by `AsyncLocalStorage` from the call down to the
 * `fetch` the SDK makes for it, so nothing needs to find the call again in the request body.
 */
interface Scope {
  readonly call: CallContext;
  readonly requestId?: number | string;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `fn` (and everything it starts) as part of `call`. */
export function runInCall<T>(call: CallContext, fn: () => T): T {
  return scopes.run({ call }, fn);
}

/** Runs `fn`, the sending of JSON-RPC request `id`, as that request of the current call (if any). */
export function runAsRequest<T>(id: number | string, fn: () => T): T {
  const scope = scopes.getStore();
  return scope === undefined ? fn() : scopes.run({ call: scope.call, requestId: id }, fn);
}

/**
 * Runs `fn` as part of no call: connecting, the session's own streams, notifications (a
 * `notifications/cancelled` must go out even when the call's signal has fired).
 */
export function runOutsideCalls<T>(fn: () => T): T {
  return scopes.exit(fn);
}

/** The call and JSON-RPC id of the request being sent now, when it belongs to a call. */
export function currentRequest(): { call: CallContext; requestId: number | string } | undefined {
  const scope = scopes.getStore();
  return scope?.requestId === undefined ? undefined : { call: scope.call, requestId: scope.requestId };
}
