import { isJsonObject } from '../core/json-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { A2AWire } from '../core/a2a-wire.js';
import type { JsonObject } from '../core/types.js';

export type { A2AWire };

/** One JSON-RPC endpoint of the agent and the wire it speaks. */
export interface A2AEndpoint {
  wire: A2AWire;
  url: string;
}

/** The JSON-RPC endpoints a card advertises, 1.0 first, each URL checked (http/https, no userinfo). */
export function listEndpoints(card: JsonObject, cardUrl: string): A2AEndpoint[] {
  const out: A2AEndpoint[] = [];
  const add = (wire: A2AWire | undefined, url: unknown): void => {
    if (wire === undefined || typeof url !== 'string') return;
    const resolved = safeHttpUrl(url, cardUrl);
    if (resolved === undefined) return;
    if (!out.some((e) => e.wire === wire && e.url === resolved)) out.push({ wire, url: resolved });
  };
  const interfaces = Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'] : [];
  for (const entry of interfaces) {
    if (!isJsonObject(entry) || !isJsonRpc(entry['protocolBinding'])) continue;
    add(wireOf(entry['protocolVersion']), entry['url']);
  }
  // v0.3 cards: the root `url` speaks `preferredTransport` (JSONRPC when absent) at `protocolVersion`.
  if (
    typeof card['url'] === 'string' &&
    (card['preferredTransport'] === undefined || isJsonRpc(card['preferredTransport']))
  ) {
    add(wireOf(card['protocolVersion']) ?? '0.3', card['url']);
  }
  const additional = Array.isArray(card['additionalInterfaces']) ? card['additionalInterfaces'] : [];
  for (const entry of additional) {
    if (isJsonObject(entry) && isJsonRpc(entry['transport']))
      add(wireOf(card['protocolVersion']) ?? '0.3', entry['url']);
  }
  return out.sort((a, b) => (a.wire === b.wire ? 0 : a.wire === '1.0' ? -1 : 1));
}

/**
 * Chooses the endpoint to talk to: the pinned wire, or 1.0 when the card offers it, else v0.3.
 * Throws `unsupported_version` when the card has no endpoint of the pinned wire (naming what it
 * has), and `protocol` when it has no usable JSON-RPC endpoint at all.
 */
export function selectEndpoint(card: JsonObject, cardUrl: string, pin: 'auto' | A2AWire): A2AEndpoint {
  const endpoints = listEndpoints(card, cardUrl);
  if (endpoints.length === 0) {
    throw new AdcpWireError('protocol', `agent card at ${cardUrl} advertises no usable JSON-RPC interface`, {
      url: cardUrl,
    });
  }
  if (pin === 'auto') return endpoints[0] as A2AEndpoint;
  const match = endpoints.find((e) => e.wire === pin);
  if (match !== undefined) return match;
  const offered = [...new Set(endpoints.map((e) => e.wire))].join(', ');
  throw new AdcpWireError(
    'unsupported_version',
    `agent card at ${cardUrl} offers A2A ${offered} only; this client is pinned to A2A ${pin}`,
    { url: cardUrl },
  );
}

/** Maps a `protocolVersion` to the wire it belongs to (`1.x` → 1.0, `0.3.x` → v0.3). */
export function wireOf(version: unknown): A2AWire | undefined {
  if (typeof version !== 'string') return undefined;
  if (/^1(\.\d+){0,2}$/.test(version)) return '1.0';
  if (/^0\.3(\.\d+)?$/.test(version)) return '0.3';
  return undefined;
}

function isJsonRpc(binding: unknown): boolean {
  return typeof binding === 'string' && binding.toUpperCase() === 'JSONRPC';
}

function safeHttpUrl(raw: string, base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  // A card fetched over https must not downgrade the endpoint (and the credentials) to http.
  if (url.protocol === 'http:' && new URL(base).protocol === 'https:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}
