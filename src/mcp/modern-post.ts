import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import { retryAfterHeaderSeconds } from '../core/retry-after-header.js';
import { authRefusal } from '../core/signature-challenge.js';
import { capBody } from '../transport/capped-body.js';
import { isRetryableStatus } from '../transport/retryable-status.js';
import { ADCP_WIRE_PACKAGE } from '../transport/package-version.js';
import { toFetchError } from './fetch-error.js';
import { RpcErrorAnswer, toRpcErrorObject } from './rpc-error-answer.js';

/** The MCP revision of the modern era (basic-versioning.md, "Terminology"). */
export const MODERN_MCP_REVISION = '2026-07-28';

/** The Tasks extension (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface ModernPostOptions {
  url: string;
  fetch: typeof fetch;
  headers?: Record<string, string>;
  /** Cap on the answer, UTF-8 bytes, SSE included, counted while reading. */
  maxBytes: number;
  signal?: AbortSignal;
  /** `Mcp-Name`: the tool name of `tools/call`, the task id of `tasks/*` (SEP-2243, SEP-2663). */
  name?: string;
  /** Notifications that arrive before the answer on an SSE answer (progress). */
  onNotification?: (message: JsonObject) => void;
}

let nextId = 0;

/**
 * Sends one MCP 2026-07-28 request (streamable-http.md, "Sending Messages"): the per-request
 * `_meta` envelope (protocol version, client info, client capabilities declaring the Tasks
 * extension) and the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers. Resolves with
 * the `result`; a JSON-RPC error rejects with `RpcErrorAnswer` (unless a 429/5xx carries it,
 * which is transient); everything else with `AdcpWireError`.
 */
export async function postModern(method: string, params: JsonObject, options: ModernPostOptions): Promise<JsonObject> {
  const id = ++nextId;
  const { url, maxBytes } = options;
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        ...meta,
        'io.modelcontextprotocol/protocolVersion': MODERN_MCP_REVISION,
        'io.modelcontextprotocol/clientInfo': { name: ADCP_WIRE_PACKAGE.name, version: ADCP_WIRE_PACKAGE.version },
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
      },
    },
  });
  const headers: Record<string, string> = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_MCP_REVISION,
    'mcp-method': method,
  };
  if (options.name !== undefined) headers['mcp-name'] = options.name;
  const signal = options.signal ?? new AbortController().signal;
  let response: Response;
  try {
    // A redirect is not followed: the credentials in `headers` go only where the user sent them.
    response = await options.fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
  } catch (error) {
    throw toFetchError(error, signal, url);
  }
  const messages = await readMessages(response, maxBytes, url, method, options.onNotification, id);
  const answer = messages.find((m) => m.id === id);
  const rpc = toRpcErrorObject(answer?.error);
  const status = response.status;
  if (rpc !== undefined && !(isRetryableStatus(status) && !hasAdcpError(rpc.data)))
    throw new RpcErrorAnswer(rpc, method);
  if (!response.ok) {
    const retryAfter = retryAfterHeaderSeconds(response.headers.get('retry-after'));
    const signature = authRefusal(status, response.headers.get('www-authenticate'));
    // A refused token is about the agent, not about the request that met it (server/discover, the era probe).
    const where = signature.fields.tokenError === undefined ? `${method} at ${url}` : url;
    throw new AdcpWireError('http_status', `${where}: HTTP ${status}${signature.note}`, {
      ...signature.fields,
      status,
      retryable: isRetryableStatus(status),
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      tool: method,
      url,
    });
  }
  if (answer === undefined || !isJsonObject(answer.result)) {
    throw new AdcpWireError('protocol', `the MCP answer from ${url} to ${method} carries no result for its request`, {
      tool: method,
      url,
    });
  }
  return answer.result;
}

function hasAdcpError(data: unknown): boolean {
  return isJsonObject(data) && isJsonObject(data.adcp_error);
}

/** The JSON-RPC messages of a JSON or SSE answer, read under the byte cap (SSE events as they come). */
async function readMessages(
  response: Response,
  maxBytes: number,
  url: string,
  method: string,
  onNotification: ModernPostOptions['onNotification'],
  id: number,
): Promise<JsonObject[]> {
  const tooLarge = (seen: number) =>
    new AdcpWireError('response_too_large', `MCP response from ${url} is over ${maxBytes} bytes (${seen} read)`, {
      tool: method,
      url,
    });
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(declared);
  }
  if (response.body === null) return [];
  const sse = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
  const decoder = new TextDecoder();
  const messages: JsonObject[] = [];
  let text = '';
  const take = (data: string) => {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!isJsonObject(message)) return;
    messages.push(message);
    if (message.id === undefined && typeof message.method === 'string') onNotification?.(message);
  };
  try {
    for await (const chunk of capBody(response.body, { maxBytes, onOverflow: tooLarge })) {
      text += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
      if (!sse) continue;
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data !== '') take(data);
        if (messages.some((m) => m.id === id)) return messages;
      }
    }
  } catch (error) {
    if (error instanceof AdcpWireError) throw error;
    throw new AdcpWireError('network', `the connection to the MCP server at ${url} broke before the answer arrived`, {
      cause: error,
      tool: method,
      url,
    });
  }
  text += decoder.decode();
  if (!sse && text.trim() !== '') take(text);
  return messages;
}
