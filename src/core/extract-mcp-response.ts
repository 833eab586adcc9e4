import { isAdcpErrorOnly, isPlainObject } from './plain-object.js';
import type { JsonObject } from './types.js';
import { utf8LengthExceeds } from './utf8-limit.js';

/** Default response-size limit for a `content[].text` item: 4 MiB of UTF-8. */
export const DEFAULT_MCP_MAX_BYTES = 4 * 1024 * 1024;

export interface McpExtractOptions {
  /** Per-item limit in UTF-8 bytes for the text fallback (default 4 MiB). Larger items are skipped unparsed. */
  maxBytes?: number;
}

/**
 * Extracts the AdCP response from an MCP `CallToolResult` (mcp-response-extraction, the four
 * steps): `null` for an `isError` result, `structuredContent` when it is an object (`null` when it
 * holds only `adcp_error`), else the first `content[].text` item of at most `maxBytes` UTF-8 bytes
 * that parses to an object, else `null`. Never throws on seller input; the object returned is the
 * seller's own (for `structuredContent`) or fresh from `JSON.parse` (own `__proto__` keys stay
 * plain data): never merge it into other objects without filtering keys.
 */
export function extractAdcpResponseFromMcp(result: unknown, options: McpExtractOptions = {}): JsonObject | null {
  const maxBytes = options.maxBytes ?? DEFAULT_MCP_MAX_BYTES;
  if (!(maxBytes >= 0)) throw new RangeError('maxBytes must be a non-negative number of bytes');
  if (!isPlainObject(result)) return null;
  // 1. Error responses belong to the error path.
  if (result['isError']) return null;
  // 2. structuredContent, when it is a non-array object.
  const structured = result['structuredContent'];
  if (isPlainObject(structured)) return isAdcpErrorOnly(structured) ? null : structured;
  // 3. Text fallback, in array order.
  const content = result['content'];
  if (!Array.isArray(content)) return null;
  for (let i = 0; i < content.length; i++) {
    const parsed = parseTextItem(content[i], maxBytes);
    if (parsed !== null && !isAdcpErrorOnly(parsed)) return parsed;
  }
  // 4. Plain text, no structured data.
  return null;
}

function parseTextItem(item: unknown, maxBytes: number): JsonObject | null {
  if (!isPlainObject(item) || item['type'] !== 'text') return null;
  const text = item['text'];
  if (typeof text !== 'string' || text.length > maxBytes || !mayBeJsonObject(text)) return null;
  if (utf8LengthExceeds(text, maxBytes)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return isPlainObject(parsed) ? parsed : null;
}

/** A JSON text whose value is an object starts with `{` after JSON whitespace; skips parsing prose. */
export function mayBeJsonObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}
