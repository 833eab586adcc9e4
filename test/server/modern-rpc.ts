/** Raw 2026-07-28 requests (per-request `_meta` envelope and headers) for server tests. */

export const MODERN = '2026-07-28';

export interface RpcAnswer {
  status: number;
  headers: Headers;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

export interface ModernRpcOptions {
  /** Declare the Tasks extension in the client capabilities. Default true. */
  tasks?: boolean;
  headers?: Record<string, string>;
  /** Override the `Mcp-Name` header (default: the tool name or task id). */
  mcpName?: string;
}

/** Sends one modern-era request and reads its JSON or SSE answer. */
export async function modernRpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRpcOptions = {},
): Promise<RpcAnswer> {
  const capabilities = options.tasks === false ? {} : { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const name = options.mcpName ?? (typeof params.name === 'string' ? params.name : params.taskId);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  const text = await response.text();
  const body = (
    response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => JSON.parse(line.slice(5)) as { id?: unknown })
          .find((message) => message.id !== undefined)
      : JSON.parse(text)
  ) as RpcAnswer['body'];
  return { status: response.status, headers: response.headers, body };
}
