import { authRefusal } from '../../core/signature-challenge.js';
import type { McpSessionClient } from './mcp-session-client.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AdcpWireError } from '../../core/wire-error.js';
import { sanitizeSellerText } from '../../core/sanitize.js';
import { abortReason } from '../../transport/abort-reason.js';
import { isRetryableStatus } from '../../transport/retryable-status.js';
import { openCallScope, type CallContext } from './call-context.js';
import type { AbortSource } from '../../transport/deadline-signal.js';
import { RpcErrorAnswer, toRpcErrorObject } from '../rpc-error-answer.js';
import type { McpSession } from './mcp-session.js';

/** Longest wait the SDK's setTimeout can hold; our own signal ends calls before it fires. */
export const NO_SDK_TIMEOUT = 2_147_000_000;

export interface SendOptions {
  maxBytes: number;
  /** The call's end: its signal, or its deadline (which then needs no AbortSignal of its own). */
  signal?: AbortSignal | AbortSource;
  /** Tool name or MCP method, for error messages. */
  what: string;
  url: string;
}

/**
 * Sends one MCP request through `session` with its own byte cap and abort signal. Resolves with
 * the SDK's parsed result; a JSON-RPC error answer rejects with `RpcErrorAnswer` (a JSON-RPC
 * error carried by a non-2xx HTTP answer too); every other failure rejects with `AdcpWireError`.
 */
export async function sendRequest<T>(
  session: McpSession,
  options: SendOptions,
  send: (client: McpSessionClient, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const scope = openCallScope(options.maxBytes, options.signal);
  try {
    const request = session.run(scope.context, (client) => send(client, scope.context.signal));
    return await Promise.race([request, scope.failed]);
  } catch (error) {
    throw toRequestError(error, scope.context, options);
  } finally {
    scope.end();
  }
}

/**
 * Maps a failed SDK request to `RpcErrorAnswer` (the server answered with a JSON-RPC error, kept
 * as it wrote it) or `AdcpWireError`.
 */
export function toRequestError(error: unknown, context: CallContext, options: SendOptions): Error {
  const { what, url } = options;
  if (error instanceof AdcpWireError) return error;
  if (context.signal.aborted) return abortReason(context.signal.reason);
  const rpc = toRpcErrorObject(context.rpcError);
  const status = context.httpStatus ?? (error instanceof StreamableHTTPError ? error.code : undefined);
  const retryAfter = context.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: context.retryAfterSeconds };
  if (rpc !== undefined) {
    // An AdCP error (transport-errors.md "Transport-Level Errors") is the agent's answer: a failed
    // result, whose missing retry_after the HTTP Retry-After stands in for.
    if (hasAdcpError(rpc.data)) return new RpcErrorAnswer({ ...rpc, data: withRetryAfter(rpc.data, context) }, what);
    // Any other JSON-RPC error on a 429 or 5xx (a gateway, rate-limit middleware) is as
    // transient as the bare status: retried like it.
    if (!isRetryableStatus(status)) return new RpcErrorAnswer(rpc, what);
  }
  if (error instanceof McpError && status === undefined) return fromSdkError(error, what);
  if (typeof status === 'number' && status > 0) {
    const signature = authRefusal(status, context.httpStatus === status ? context.challenge : undefined);
    return new AdcpWireError('http_status', `${what} at ${url}: HTTP ${status}${signature.note}`, {
      ...signature.fields,
      cause: error,
      status,
      retryable: isRetryableStatus(status),
      ...retryAfter,
      tool: what,
      url,
    });
  }
  if (error instanceof McpError) return fromSdkError(error, what);
  const message = (error instanceof Error ? sanitizeSellerText(error.message) : undefined) ?? 'unknown failure';
  return new AdcpWireError('protocol', `${what} at ${url}: unreadable MCP answer (${message})`, {
    cause: error,
    tool: what,
    url,
  });
}

function hasAdcpError(data: unknown): data is Record<string, unknown> & { adcp_error: Record<string, unknown> } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const adcpError = (data as Record<string, unknown>)['adcp_error'];
  return adcpError !== null && typeof adcpError === 'object' && !Array.isArray(adcpError);
}

function withRetryAfter(data: Record<string, unknown> & { adcp_error: Record<string, unknown> }, context: CallContext) {
  if (context.retryAfterSeconds === undefined || data.adcp_error['retry_after'] !== undefined) return data;
  return { ...data, adcp_error: { ...data.adcp_error, retry_after: context.retryAfterSeconds } };
}

/**
 * An `McpError` the SDK made without an answer we read: an error answer on the legacy HTTP+SSE
 * stream (shared by every call, so not read per call), or the SDK's own (connection closed).
 * `McpError` prefixes its message with "MCP error <code>: "; the result wants the wire's words.
 */
function fromSdkError(error: McpError, what: string): RpcErrorAnswer {
  const message = error.message.replace(/^(MCP error -?\d+: )+/, '');
  return new RpcErrorAnswer(
    error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data },
    what,
  );
}
