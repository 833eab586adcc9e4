import type { AdcpTransport, TransportOptions } from '../transport/transport.js';
import { urlAttributes } from '../telemetry/attributes.js';
import { inSpan } from '../telemetry/span.js';
import type { McpFetch } from '../mcp/mcp-start.js';

/**
 * Creates the transport for `protocol`. Both are loaded on demand, so an MCP caller never loads
 * the A2A SDK and an A2A caller never loads the MCP SDK. `auto` speaks A2A when the URL is the
 * agent's A2A address, MCP otherwise (see `isA2AAddress`).
 */
export async function createTransport(
  protocol: 'mcp' | 'a2a' | 'auto',
  options: TransportOptions,
  signal?: AbortSignal,
): Promise<AdcpTransport> {
  if (protocol === 'mcp') return mcpTransport(options);
  const a2aModule = await import('../a2a/index.js');
  if (protocol === 'a2a') return a2aModule.createA2ATransport(options);
  // The card is looked for through the MCP transport's fetch (over node:http when the user gave
  // none): an MCP agent's first answer then does not pay for Node's fetch compiling its
  // WebAssembly parser (docs/decisions/0281-first-answer-method.md). Cards are read without
  // following redirects elsewhere on either fetch.
  const { mcpFetch } = await import('../mcp/mcp-start.js');
  const fetched = mcpFetch(options);
  const finder = a2aModule.createA2ATransport({ ...options, fetch: fetched.fetch });
  const card = await finder
    .readCard(signal === undefined ? { maxBytes: options.maxBytes } : { maxBytes: options.maxBytes, signal })
    .catch(() => undefined);
  await finder.close().catch(() => undefined);
  if (card?.card !== undefined && card.url !== undefined) {
    const interfaces = a2aModule.listEndpoints(card.card, card.url).map((e) => e.url);
    if (isA2AAddress(options.url, card.url, interfaces)) {
      fetched.http?.close();
      return a2aModule.createA2ATransport(options);
    }
  }
  if (signal?.aborted === true) {
    fetched.http?.close();
    throw signal.reason;
  }
  return mcpTransport(options, fetched);
}

/**
 * The MCP transport, its era probe sent before the MCP SDK is loaded (`startMcp` needs none of
 * it): the probe's round trip overlaps the SDK's load instead of following it.
 */
async function mcpTransport(options: TransportOptions, fetched?: McpFetch): Promise<AdcpTransport> {
  const start = (await import('../mcp/mcp-start.js')).startMcp(
    options,
    (probe) =>
      // The probe's own MCP client span, child of whatever is active: the call that needed the era.
      inSpan(
        'server/discover',
        () => ({ kind: 'client', attributes: { 'mcp.method.name': 'server/discover', ...urlAttributes(options.url) } }),
        probe,
      ),
    fetched,
  );
  try {
    return (await import('../mcp/index.js')).createMcpTransport(options, start);
  } catch (error) {
    start.http?.close();
    throw error;
  }
}

/**
 * Whether `url` addresses the A2A agent the card at `cardUrl` describes: it is the card itself,
 * one of the card's interface URLs, or the card was found under it (`url` + `/.well-known/...`).
 * A card found only at the origin of `https://seller/mcp` does not make `/mcp` an A2A address: a
 * seller serving both protocols on one host keeps its MCP endpoint there.
 */
export function isA2AAddress(url: string, cardUrl: string, interfaces: readonly string[]): boolean {
  const base = trimSlash(url);
  if (base === trimSlash(cardUrl)) return true;
  if (interfaces.some((i) => trimSlash(i) === base)) return true;
  return cardUrl.startsWith(`${base}/.well-known/`);
}

function trimSlash(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}
