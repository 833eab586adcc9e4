import { parseJsonStrict } from '../core/json.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import type { JsonObject } from '../core/types.js';
import type { CardInfo } from '../transport/transport.js';
import { capBody } from '../transport/capped-body.js';

/** Card locations, in the order the MCP guide gives them ("AdCP Extension via MCP Server Card"). */
export const SERVER_CARD_PATHS = ['/.well-known/mcp.json', '/.well-known/server.json'] as const;
/** A server card is metadata: anything past this many bytes is refused. */
export const MAX_SERVER_CARD_BYTES = 256 * 1024;

export interface ReadCardOptions {
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  maxBytes?: number;
}

/**
 * Reads the MCP server card of the agent at `url`: `/.well-known/mcp.json`, then
 * `/.well-known/server.json`, at the URL's origin. A missing card (404, or nothing listening
 * there) is normal and gives `{}`; a card that is oversized, not JSON, has duplicate keys or is
 * not an object is reported in `problem`, never thrown. Only the caller's abort throws.
 */
export async function readServerCard(url: string, options: ReadCardOptions = {}): Promise<CardInfo> {
  const base = options.fetch ?? globalThis.fetch;
  const maxBytes = Math.min(options.maxBytes ?? MAX_SERVER_CARD_BYTES, MAX_SERVER_CARD_BYTES);
  const origin = new URL(url).origin;
  for (const path of SERVER_CARD_PATHS) {
    const cardUrl = origin + path;
    let response: Response;
    try {
      const init: RequestInit = { headers: { accept: 'application/json', ...options.headers }, redirect: 'error' };
      if (options.signal !== undefined) init.signal = options.signal;
      response = await base(cardUrl, init);
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      return { url: cardUrl, problem: `could not fetch the server card (${describe(error)})` };
    }
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { url: cardUrl, problem: `the server card answered HTTP ${response.status}` };
    }
    return readCardBody(cardUrl, response, maxBytes);
  }
  return {};
}

async function readCardBody(cardUrl: string, response: Response, maxBytes: number): Promise<CardInfo> {
  let text: string;
  try {
    const body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    const capped = capBody(body, {
      maxBytes,
      onOverflow: (seen) => new RangeError(`over ${maxBytes} bytes (${seen} read)`),
    });
    text = await new Response(capped).text();
  } catch (error) {
    return { url: cardUrl, problem: `the server card is unreadable: ${describe(error)}` };
  }
  const parsed = parseJsonStrict(text);
  if (!parsed.ok) return { url: cardUrl, problem: `the server card is not valid JSON (${parsed.reason})` };
  const card = parsed.value;
  if (card === null || typeof card !== 'object' || Array.isArray(card)) {
    return { url: cardUrl, problem: 'the server card is not a JSON object' };
  }
  return { url: cardUrl, card: card as JsonObject };
}

/** The `_meta["adcontextprotocol.org"]` block of a card, when it is an object. */
export function adcpCardMeta(card: JsonObject | undefined): JsonObject | undefined {
  const meta = card?.['_meta'];
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  const block = (meta as JsonObject)['adcontextprotocol.org'];
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return undefined;
  return block as JsonObject;
}

function describe(error: unknown): string {
  return (
    (error instanceof Error ? sanitizeSellerText(error.message, { maxLength: 120 }) : undefined) ?? 'unknown error'
  );
}

/** The agent's MCP server card (either era), through a transport's fetch and headers. */
export function readCardOf(
  transport: { url: string; fetch: typeof fetch; headers?: Record<string, string> },
  options: { signal?: AbortSignal },
): Promise<CardInfo> {
  const read: ReadCardOptions = { fetch: transport.fetch };
  if (transport.headers !== undefined) read.headers = transport.headers;
  if (options.signal !== undefined) read.signal = options.signal;
  return readServerCard(transport.url, read);
}
