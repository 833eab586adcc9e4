import type { JsonRpcResponse, RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';

/**
 * A plain HTTP JSON-RPC dispatcher for the 2026-07-28 era: what the ext-tasks requester needs
 * as `rawDispatch` (the SDK v2 client's codecs do not carry the Tasks extension's traffic). Sets
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` (the tool name, or the task id for
 * `tasks/*`, SEP-2663 "Routing Headers"); reads a JSON or SSE answer.
 */
export function rawModernDispatch(url: string, headers: Record<string, string> = {}): RawClientDispatch {
  return async (request, options) => {
    const message = request as { method: string; params?: { name?: string; taskId?: string } };
    const name = message.method === 'tools/call' ? message.params?.name : message.params?.taskId;
    // One Headers object, so a header the requester sets again (any case) replaces ours.
    const sent = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': message.method,
    });
    if (name !== undefined) sent.set('mcp-name', name);
    for (const [key, value] of Object.entries({ ...headers, ...options?.context?.headers })) sent.set(key, value);
    const response = await fetch(url, {
      method: 'POST',
      headers: sent,
      body: JSON.stringify({ jsonrpc: '2.0', id: crypto.randomUUID(), ...message }),
      ...(options?.signal === undefined ? {} : { signal: options.signal }),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => JSON.parse(line.slice(5)) as { id?: unknown })
          .find((m) => m.id !== undefined)
      : (JSON.parse(text) as unknown);
    const answer = json as { result?: unknown; error?: unknown };
    if (answer.error !== undefined) return { kind: 'error', error: answer.error } as JsonRpcResponse;
    return { kind: 'result', result: answer.result } as JsonRpcResponse;
  };
}
