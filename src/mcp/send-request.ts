import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import { abortError, openCallScope, type CallContext } from './call-context.js';
import type { McpSession } from './mcp-session.js';

/** Longest wait the SDK's setTimeout can hold; our own signal ends calls before it fires. */
export const NO_SDK_TIMEOUT = 2_147_000_000;

export interface SendOptions {
  maxBytes: number;
  signal?: AbortSignal;
  /** Tool name or MCP method, for error messages. */
  what: string;
  url: string;
}

/**
 * Sends one MCP request through `session` with its own byte cap and abort signal. Resolves with
 * the SDK's parsed result; a JSON-RPC error answer rejects with the SDK's `McpError` (a JSON-RPC
 * error carried by a non-2xx HTTP answer too); every other failure rejects with `AdcpWireError`.
 * `send` must call the SDK synchronously (see `McpSession.run`).
 */
export async function sendRequest<T>(
  session: McpSession,
  options: SendOptions,
  send: (client: Client, signal: AbortSignal) => Promise<T>,
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

/** Maps a failed SDK request to `McpError` (the server answered with a JSON-RPC error) or `AdcpWireError`. */
export function toRequestError(error: unknown, context: CallContext, options: SendOptions): Error {
  const { what, url } = options;
  if (error instanceof AdcpWireError) return error;
  if (context.signal.aborted) return abortError(context.signal.reason);
  const rpc = context.rpcError as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  if (rpc !== undefined && typeof rpc.code === 'number') {
    return new McpError(rpc.code, typeof rpc.message === 'string' ? rpc.message : '', rpc.data);
  }
  if (error instanceof McpError) return error;
  if (error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code > 0) {
    return new AdcpWireError('http_status', `${what} at ${url}: HTTP ${error.code}`, {
      cause: error,
      status: error.code,
      retryable: error.code === 429 || error.code === 502 || error.code === 503 || error.code === 504,
      tool: what,
      url,
    });
  }
  const message = (error instanceof Error ? sanitizeSellerText(error.message) : undefined) ?? 'unknown failure';
  return new AdcpWireError('protocol', `${what} at ${url}: unreadable MCP answer (${message})`, {
    cause: error,
    tool: what,
    url,
  });
}
