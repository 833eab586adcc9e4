import type { AdcpTransport, TransportOptions } from './transport.js';

/**
 * Creates the transport for `protocol`. Both are loaded on demand, so an MCP caller never loads
 * the A2A SDK and an A2A caller never loads the MCP SDK. `auto` looks for an A2A agent card at
 * the URL and speaks A2A when there is one, MCP otherwise.
 */
export async function createTransport(
  protocol: 'mcp' | 'a2a' | 'auto',
  options: TransportOptions,
  signal?: AbortSignal,
): Promise<AdcpTransport> {
  if (protocol === 'mcp') return (await import('../mcp/index.js')).createMcpTransport(options);
  if (protocol === 'a2a') return (await import('../a2a/index.js')).createA2ATransport(options);
  const a2a = (await import('../a2a/index.js')).createA2ATransport(options);
  const card = await a2a.readCard(signal === undefined ? { maxBytes: options.maxBytes } : { maxBytes: options.maxBytes, signal }).catch(
    () => undefined,
  );
  if (card?.card !== undefined) return a2a;
  await a2a.close().catch(() => undefined);
  if (signal?.aborted === true) throw signal.reason;
  return (await import('../mcp/index.js')).createMcpTransport(options);
}
