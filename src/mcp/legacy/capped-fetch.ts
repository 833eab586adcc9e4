import { AdcpWireError } from '../../core/wire-error.js';
import { abortReason } from '../../transport/abort-reason.js';
import type { CallContext, CallRequest, RequestLedger } from './call-context.js';
import { capBody, type CapOptions } from '../../transport/capped-body.js';
import { checkJsonAnswer, watchSseAnswer } from './watch-answer.js';
import { retryAfterHeaderSeconds } from '../../core/retry-after-header.js';
import { toFetchError } from '../fetch-error.js';

export interface CappedFetchOptions {
  /** The underlying fetch; the global one when absent. */
  fetch?: typeof fetch;
  /** Cap for requests that belong to no call (initialize, GET streams, DELETE). */
  maxBytes: number;
  /** For error messages. */
  url: string;
  /** Called when a stream that belongs to no call (a GET stream) runs over the cap. */
  onStreamOverflow?: (error: AdcpWireError) => void;
  /** Called when a GET stream (which belongs to no call) ends, cleanly or not. */
  onStreamEnd?: (error: AdcpWireError) => void;
}

export interface CappedFetch {
  /** The fetch for one MCP transport, whose requests sent for calls are in `requests`. */
  fetchFor(requests: RequestLedger): typeof fetch;
  /** Aborts every request still in flight that belongs to no call (calls are failed by their owner). */
  abortAll(): void;
  /** Status and `WWW-Authenticate` of the last refused request that belonged to no call (initialize). */
  lastRefusal(): { status: number; challenge: string | null } | undefined;
}

/**
 * A fetch for the MCP SDK transports that caps every response body in bytes while it streams
 * (SSE included: per body for POST answers, per event for long-lived GET streams), gives each
 * request its own AbortSignal (one long-lived signal shared by all requests floods Node with
 * MaxListenersExceededWarning), maps socket failures to `AdcpWireError('network')`, and keeps
 * the JSON-RPC error of a non-2xx answer for the call to read.
 */
export function createCappedFetch(options: CappedFetchOptions): CappedFetch {
  const base = options.fetch ?? globalThis.fetch;
  const inFlight = new Set<AbortController>();
  let lastRefusal: { status: number; challenge: string | null } | undefined;

  async function cappedFetch(
    input: string | URL | Request,
    init: RequestInit,
    request: CallRequest | undefined,
  ): Promise<Response> {
    // The call this request belongs to, if any (see `RequestLedger`): its cap, signal and failure.
    const context = request?.call;
    const requestId = request?.requestId;
    if (context?.signal.aborted === true) throw abortReason(context.signal.reason);
    // A call's request already has its own signal (the call scope's); others get a fresh one,
    // tracked so that close() can abort them. Never the SDK's long-lived one.
    const controller = context === undefined ? new AbortController() : undefined;
    const signal = context?.signal ?? (controller as AbortController).signal;
    if (controller !== undefined) inFlight.add(controller);
    const done = (): void => {
      if (controller !== undefined) inFlight.delete(controller);
    };
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      done();
      throw toFetchError(error, signal, options.url);
    }
    if (!response.ok && context !== undefined) {
      context.httpStatus = response.status;
      const retryAfter = retryAfterHeaderSeconds(response.headers.get('retry-after'));
      if (retryAfter !== undefined) context.retryAfterSeconds = retryAfter;
      const challenge = response.headers.get('www-authenticate');
      if (challenge !== null) context.challenge = challenge;
    }
    // Outside calls (initialize): the last refusal's challenge, for the connect error to name.
    if (context === undefined)
      lastRefusal = response.ok
        ? undefined
        : { status: response.status, challenge: response.headers.get('www-authenticate') };
    const maxBytes = context?.maxBytes ?? options.maxBytes;
    const overflow = (seen: number): AdcpWireError => {
      const error = new AdcpWireError(
        'response_too_large',
        `MCP response from ${options.url} is over ${maxBytes} bytes (${seen} read)`,
        { url: options.url },
      );
      if (context !== undefined) context.fail(error);
      else options.onStreamOverflow?.(error);
      return error;
    };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      done();
      void response.body?.cancel().catch(() => undefined);
      throw overflow(declared);
    }
    if (response.body === null) {
      done();
      return response;
    }
    // Every body is read through the cap (a declared length may lie, or be the compressed one).
    // A call's answer is watched too: an SSE answer as it streams, a JSON one once read whole.
    const answering = context !== undefined && requestId !== undefined && response.ok;
    const sse = answering && isEventStream(response.headers.get('content-type'));
    const perEvent = (init.method ?? 'GET').toUpperCase() === 'GET';
    const cap: CapOptions = {
      maxBytes,
      onOverflow: overflow,
      perEvent,
      onEnd: (readError) => {
        done();
        if (context !== undefined) {
          if (readError !== undefined) failIfUnanswered(context, readError, options.url);
        } else if (perEvent) {
          const how = readError === undefined ? 'ended' : 'broke';
          options.onStreamEnd?.(
            new AdcpWireError('network', `the event stream from ${options.url} ${how}`, {
              cause: readError,
              url: options.url,
            }),
          );
        }
      },
    };
    if (sse) {
      const report = answerReport(context, options.url);
      cap.watch = watchSseAnswer(requestId, report.fail, report.keep, () => context.settled === true);
    }
    const capped = new Response(capBody(response.body, cap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    if (!response.ok && context !== undefined) return keepRpcError(capped, context);
    if (answering && !sse) return watchAnswer(capped, requestId, context, options.url);
    return capped;
  }

  return {
    fetchFor: (requests) => (input, init) => cappedFetch(input, init ?? {}, requests.find(init?.body)),
    abortAll() {
      for (const controller of inFlight) controller.abort(new AdcpWireError('aborted', 'the MCP client was closed'));
      inFlight.clear();
    },
    lastRefusal: () => lastRefusal,
  };
}

/** The error of a call whose answer stopped coming: a dropped connection, which may be resent. */
function brokenAnswer(readError: unknown, url: string): AdcpWireError {
  return new AdcpWireError('network', `the connection to the MCP server at ${url} broke before the answer arrived`, {
    cause: readError,
    url,
  });
}

/**
 * The answer stream of a call broke (the server died mid-answer): the SDK would wait for an answer
 * that cannot come until the call's deadline. Once the SDK has handled what did arrive, a call
 * still unanswered fails as a dropped connection, which the client may resend under its
 * idempotency key.
 */
function failIfUnanswered(context: CallContext, readError: unknown, url: string): void {
  setTimeout(() => {
    if (context.settled === true || context.signal.aborted) return;
    context.fail(brokenAnswer(readError, url));
  }, 0);
}

/**
 * Fails the call at once when its 2xx JSON answer cannot settle it: JSON that answers another id
 * (or none). The SDK drops such answers and would wait for the call's whole deadline. (An SSE
 * answer is watched as it streams, in `capBody`'s pull: see `watchSseAnswer`.)
 */
async function watchAnswer(
  response: Response,
  id: number | string,
  context: CallContext,
  url: string,
): Promise<Response> {
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  if (!type.includes('application/json')) return response;
  const text = await response.text();
  const report = answerReport(context, url);
  const { problem } = checkJsonAnswer(text, id, report.keep);
  if (problem !== undefined) report.fail(problem);
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * What a watched answer (JSON or SSE) tells its call: `fail` with a protocol error saying what
 * is wrong with the answer from `url`, and `keep` a JSON-RPC error answer as the server wrote it
 * (see `toRequestError`).
 */
function answerReport(
  context: CallContext,
  url: string,
): { fail: (problem: string) => void; keep: (error: Record<string, unknown>) => void } {
  return {
    fail: (problem) =>
      context.fail(new AdcpWireError('protocol', `the MCP answer from ${url || 'the server'} ${problem}`)),
    keep: (error) => {
      context.rpcError = error;
    },
  };
}

/**
 * Whether a `Content-Type` is an SSE stream: its media type (before any parameter), as the SDK
 * decides whether to read an answer as a stream. (Where a malformed header makes the two differ,
 * the answer is still capped; only the early failure of a wrong answer is lost.)
 */
function isEventStream(type: string | null): boolean {
  return (type ?? '').split(';', 1)[0]?.trim().toLowerCase() === 'text/event-stream';
}

/**
 * Reads a non-2xx answer (already capped) and, when it is a JSON-RPC error, keeps its `error`
 * object on the call context; the SDK then gets the same text back and throws its HTTP error.
 */
async function keepRpcError(response: Response, context: CallContext): Promise<Response> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const error = (parsed as { error?: unknown }).error;
      if (error !== null && typeof error === 'object' && !Array.isArray(error)) context.rpcError = error;
    }
  } catch {
    // Not JSON: the SDK reports the HTTP status.
  }
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}
