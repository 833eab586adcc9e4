import { AdcpWireError } from '../core/wire-error.js';
import { parseJsonStrict } from '../core/json.js';
import { isPlainObject } from '../core/plain-object.js';
import { retryAfterHeaderSeconds } from '../core/retry-after-header.js';
import { authRefusal } from '../core/signature-challenge.js';
import { readCappedChunks, readCappedText } from './read-capped.js';
import { describe, type WireContext } from './wire-context.js';
import { isRetryableStatus } from '../transport/retryable-status.js';
import { parseSse } from './parse-sse.js';
import { fetchFailure } from './fetch-failure.js';

/** One JSON-RPC request over HTTP POST. */
export interface RpcRequest {
  url: string;
  method: string;
  params: unknown;
  headers: Record<string, string>;
  fetch: typeof fetch;
  /** Whole-response cap in bytes (a stream counts every event). */
  maxBytes: number;
  signal?: AbortSignal | undefined;
  /** The AdCP tool, for error messages. */
  tool?: string | undefined;
}

/** A JSON-RPC `error` member as it arrived (seller-controlled). */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcReply = { ok: true; result: unknown } | { ok: false; error: RpcErrorObject };

let nextId = 1;

/** Sends one JSON-RPC request and returns its `result` or `error`; throws AdcpWireError when it cannot. */
export async function callJsonRpc(request: RpcRequest): Promise<RpcReply> {
  const id = nextId++;
  const ctx = contextOf(request);
  const response = await post(request, id, 'application/json');
  if (!(response instanceof Response)) return response;
  const text = await readCappedText(response, request.maxBytes, ctx);
  return toReply(parseBody(text, ctx), id, ctx);
}

/**
 * Sends a streaming JSON-RPC request and yields one reply per SSE event. A server that answers
 * with plain JSON instead (typically an error) yields that single reply.
 */
export async function* streamJsonRpc(request: RpcRequest): AsyncGenerator<RpcReply> {
  const id = nextId++;
  const ctx = contextOf(request);
  const response = await post(request, id, 'text/event-stream');
  if (!(response instanceof Response)) {
    yield response;
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (!type.toLowerCase().startsWith('text/event-stream')) {
    const text = await readCappedText(response, request.maxBytes, ctx);
    yield toReply(parseBody(text, ctx), id, ctx);
    return;
  }
  for await (const data of parseSse(readCappedChunks(response, request.maxBytes, ctx))) {
    yield toReply(parseBody(data, ctx), id, ctx);
  }
}

function contextOf(request: RpcRequest): WireContext {
  const ctx: WireContext = { url: request.url, signal: request.signal };
  if (request.tool !== undefined) ctx.tool = request.tool;
  return ctx;
}

/**
 * POSTs one request: the HTTP answer to read, or, for a refusing status (401, 429, 5xx...) whose
 * body is a JSON-RPC error carrying an `adcp_error`, that error as the reply: the seller's answer
 * (AUTH_MISSING, RATE_LIMITED...), read as MCP reads it (transport-errors.md, step 4).
 */
async function post(request: RpcRequest, id: number, accept: string): Promise<Response | RpcReply> {
  const ctx = contextOf(request);
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params });
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      method: 'POST',
      headers: { ...request.headers, 'content-type': 'application/json', accept },
      body,
      redirect: 'manual', // a 3xx is an http_status error: the caller's credentials never follow it
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  } catch (error) {
    throw fetchFailure(error, request.signal, ctx);
  }
  if (!response.ok) {
    const answered = await adcpErrorReply(response, request.maxBytes, ctx);
    if (answered !== undefined) return answered;
    await response.body?.cancel().catch(() => undefined);
    const signature = authRefusal(response.status, response.headers.get('www-authenticate'));
    throw new AdcpWireError(
      'http_status',
      `A2A ${request.method} to ${describe(ctx)} answered HTTP ${response.status}${signature.note}`,
      {
        ...errorOptions(ctx),
        status: response.status,
        retryable: isRetryableStatus(response.status),
        ...retryAfterOf(response),
        ...signature.fields,
      },
    );
  }
  return response;
}

/** Most read of a refusing answer's body, looking for its `adcp_error`. */
const MAX_REFUSAL_BYTES = 64 * 1024;

/** The JSON-RPC error with an `adcp_error` a refusing answer carries, else `undefined` (body left unread or spent). */
async function adcpErrorReply(response: Response, maxBytes: number, ctx: WireContext): Promise<RpcReply | undefined> {
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '')) return undefined;
  let reply: RpcReply;
  try {
    reply = toReply(parseBody(await readCappedText(response, Math.min(maxBytes, MAX_REFUSAL_BYTES), ctx), ctx), 0, ctx);
  } catch {
    return undefined;
  }
  if (reply.ok || !isPlainObject(reply.error.data) || !isPlainObject(reply.error.data['adcp_error'])) return undefined;
  const adcpError = reply.error.data['adcp_error'];
  const retryAfter = retryAfterOf(response).retryAfterSeconds;
  if (retryAfter === undefined || adcpError['retry_after'] !== undefined) return reply;
  // The HTTP Retry-After stands in for a missing retry_after, as on MCP.
  return {
    ok: false,
    error: { ...reply.error, data: { ...reply.error.data, adcp_error: { ...adcpError, retry_after: retryAfter } } },
  };
}

/** `Retry-After` of a refusal, when it has a readable one (its body is not read: the status decides). */
function retryAfterOf(response: Response): { retryAfterSeconds?: number } {
  const seconds = retryAfterHeaderSeconds(response.headers.get('retry-after'));
  return seconds === undefined ? {} : { retryAfterSeconds: seconds };
}

function errorOptions(ctx: WireContext): { url: string; tool?: string } {
  return ctx.tool === undefined ? { url: ctx.url } : { url: ctx.url, tool: ctx.tool };
}

function parseBody(text: string, ctx: WireContext): unknown {
  const parsed = parseJsonStrict(text);
  if (!parsed.ok) {
    throw new AdcpWireError(
      'protocol',
      `A2A response from ${describe(ctx)} is not valid JSON (${parsed.reason})`,
      errorOptions(ctx),
    );
  }
  return parsed.value;
}

function toReply(value: unknown, id: number, ctx: WireContext): RpcReply {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw protocol('is not a JSON-RPC object', ctx);
  }
  const envelope = value as Record<string, unknown>;
  if (envelope['jsonrpc'] !== '2.0') throw protocol('is not JSON-RPC 2.0', ctx);
  // An error about an unparsable request may carry `id: null`; anything else must echo our id.
  if ('error' in envelope) {
    const error = envelope['error'];
    if (typeof error !== 'object' || error === null || Array.isArray(error))
      throw protocol('has a malformed error', ctx);
    const { code, message, data } = error as Record<string, unknown>;
    if (typeof code !== 'number' || !Number.isInteger(code))
      throw protocol('has an error without an integer code', ctx);
    const out: RpcErrorObject = { code, message: typeof message === 'string' ? message : '' };
    if (data !== undefined) out.data = data;
    return { ok: false, error: out };
  }
  if (envelope['id'] !== id) throw protocol(`answers another request id`, ctx);
  if (!('result' in envelope)) throw protocol('has neither result nor error', ctx);
  return { ok: true, result: envelope['result'] };
}

function protocol(what: string, ctx: WireContext): AdcpWireError {
  return new AdcpWireError('protocol', `A2A response from ${describe(ctx)} ${what}`, errorOptions(ctx));
}
