import { sanitizeSellerText } from '../core/sanitize.js';
import type { AttributeValue } from './span.js';

/**
 * The AdCP attributes every span of this package may carry, beside the OpenTelemetry semantic
 * conventions' own (HTTP, JSON-RPC, MCP). Values are identifiers and codes, never bodies.
 */
export const ADCP_ATTR = {
  tool: 'adcp.tool',
  taskId: 'adcp.task_id',
  operationId: 'adcp.operation_id',
  status: 'adcp.status',
  errorCode: 'adcp.error.code',
  protocol: 'adcp.protocol',
  attempt: 'adcp.attempt',
} as const;

/**
 * A seller- or buyer-controlled identifier made safe for a span: control and bidi characters
 * stripped, at most 128 characters. Anything that is not a string is dropped.
 */
export function safeId(value: unknown): string | undefined {
  return sanitizeSellerText(value, { maxLength: 128 });
}

const byUrl = new Map<string, Readonly<Record<string, AttributeValue>>>();

/**
 * `server.address`, `server.port` and `url.full` for a request to `url`, with the userinfo,
 * query and fragment removed (a token in a query string never reaches a span). Remembered for a
 * few dozen URL strings: a client asks for its own on every span.
 */
export function urlAttributes(url: string | URL): Readonly<Record<string, AttributeValue>> {
  if (typeof url !== 'string') return parseUrlAttributes(url);
  let known = byUrl.get(url);
  if (known === undefined) {
    if (byUrl.size >= 64) byUrl.clear();
    known = Object.freeze(parseUrlAttributes(url));
    byUrl.set(url, known);
  }
  return known;
}

function parseUrlAttributes(url: string | URL): Record<string, AttributeValue> {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return {};
  }
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return {
    'server.address': parsed.hostname.replace(/^\[|\]$/g, ''),
    'server.port': port,
    'url.full': `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
  };
}
