import { AdcpWireError } from '../../core/wire-error.js';
import { abortReason } from '../../transport/abort-reason.js';
import type { CallContext, CallRequest, RequestLedger } from './call-context.js';
import { capBody, type CapOptions } from '../../transport/capped-body.js';
import { mediaTypeEssence } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { checkJsonAnswer, sseField, watchSseAnswer } from './watch-answer.js';
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
    // A call's SSE answer passes through one stream: capped (when it must be counted) and watched
    // for the answer in the same pull, handed to the SDK as the fetch's own Response.
    const answering = context !== undefined && requestId !== undefined && response.ok;
    const sse = answering && isEventStream(response.headers.get('content-type'));
    // A declared length within the cap needs no counting (the body cannot outgrow it), unless the
    // body is compressed: fetch inflates it, and the declared length is the compressed one.
    const counted = !(declared >= 0 && response.ok && !response.headers.has('content-encoding'));
    if (!counted && !sse) {
      done();
      return answering ? watchAnswer(response, requestId, context) : response;
    }
    if (!counted && sse) {
      // A whole SSE answer of a declared length (as the SDK server sends one it has whole).
      done();
      return readWholeSseAnswer(response, requestId, context, options.url);
    }
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
      const report = answerReport(context, response.url);
      cap.watch = watchSseAnswer(requestId, report.fail, report.keep, () => context.settled === true);
      return withBody(response, capBody(response.body, cap));
    }
    const capped = new Response(capBody(response.body, cap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    if (!response.ok && context !== undefined) return keepRpcError(capped, context);
    if (answering) return watchAnswer(capped, requestId, context);
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
async function watchAnswer(response: Response, id: number | string, context: CallContext): Promise<Response> {
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  if (!type.includes('application/json')) return response;
  const text = await response.text();
  const report = answerReport(context, response.url);
  const { parsed, problem } = checkJsonAnswer(text, id, report.keep);
  if (problem !== undefined) report.fail(problem);
  return withReadBody(response, text, parsed);
}

/**
 * An SSE answer whose length is declared (within the cap) is whole once read: read at once and,
 * when it is one plain `message` event (no event id, no `retry`) answering the request, handed to
 * the SDK as the JSON answer it carries, parsed once. The SDK's SSE path would decode and parse it
 * through two more streams after the one this client watches it with (on Node 20 each stream
 * costs tens of µs to make), and parse it a second time. Anything else (progress events before
 * the answer, a resumable or unreadable event, no answer) goes to the SDK as the event stream it
 * was, watched as any SSE answer is. A connection that breaks mid-body fails as a dropped one.
 */
async function readWholeSseAnswer(
  response: Response,
  id: number | string,
  context: CallContext,
  url: string,
): Promise<Response> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (context.signal.aborted) throw abortReason(context.signal.reason);
    throw brokenAnswer(error, url);
  }
  const report = answerReport(context, response.url);
  const data = soleMessageData(text);
  if (data !== undefined) {
    const { parsed, problem } = checkJsonAnswer(data, id, report.keep);
    if (parsed !== undefined && problem === undefined) {
      const headers = new Headers(response.headers);
      headers.set('content-type', 'application/json');
      Object.defineProperty(response, 'headers', { value: headers });
      return withReadBody(response, data, parsed);
    }
  }
  const watch = watchSseAnswer(id, report.fail, report.keep, () => context.settled === true);
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      watch.chunk(bytes);
      watch.end();
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return withBody(response, body);
}

/**
 * The data of `text`'s only event when the whole SSE body is one `message` event with data and
 * nothing the SDK would act on besides (an `id` or `retry` field, another event): else `undefined`.
 */
export function soleMessageData(text: string): string | undefined {
  let data: string[] | undefined;
  let event = '';
  let found: string | undefined;
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // what follows the last line break is no line (an unfinished one, or nothing)
  for (const line of lines) {
    if (line === '') {
      if (data !== undefined) {
        if (found !== undefined || (event !== '' && event !== 'message')) return undefined;
        found = data.join('\n');
      }
      data = undefined;
      event = '';
      continue;
    }
    const { field, value } = sseField(line);
    if (field === 'data') (data ??= []).push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' || field === 'retry') return undefined;
  }
  // An event the body ends before its blank line is dropped (the SSE rules, and the SDK's).
  return found === '' ? undefined : found;
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
 * Whether a `Content-Type` is an SSE stream, by the SDK's own rule (the parsed media type), so
 * that the body this client watches is the one the SDK reads as a stream.
 */
function isEventStream(type: string | null): boolean {
  return type === 'text/event-stream' || mediaTypeEssence(type) === 'text/event-stream';
}

/**
 * `response` with `body` replaced by `body` (a stream reading the original one): the status,
 * headers and URL stay the fetch's own, and no new Response is made (on Node 20 each costs
 * `makeTransferable` and a copy of the headers). The SDK reads an SSE answer through `body` only.
 */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  Object.defineProperty(response, 'body', { value: body });
  return response;
}

/**
 * `response`, whose body was read as `text` (and parsed, when it is JSON) to check it, answering
 * `text()` and `json()` for the SDK from what was read: the body is not parsed twice, and no new
 * Response is made (on Node 20 its ReadableStream runs `makeTransferable`, tens of µs per call).
 * The status, headers and URL stay the fetch's own.
 */
function withReadBody(response: Response, text: string, parsed?: unknown): Response {
  Object.defineProperties(response, {
    text: { value: () => Promise.resolve(text) },
    json: {
      value: () =>
        parsed === undefined ? new Promise((resolve) => resolve(JSON.parse(text))) : Promise.resolve(parsed),
    },
  });
  return response;
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
