import { UsageError, parseSeconds, printable } from './args.js';
import type { CliIo } from './io.js';

/** The options every command that talks to an agent accepts. */
export const CONNECTION_OPTIONS = {
  protocol: { type: 'string' },
  auth: { type: 'string' },
  header: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const CONNECTION_HELP = [
  "  --protocol mcp|a2a|auto  which wire to speak (default auto: A2A when the URL is the agent's",
  '                           A2A address by its agent card, MCP otherwise)',
  '  --auth TOKEN             bearer token (or set ADCP_AUTH_TOKEN, kept out of shell history)',
  '  --header K:V             extra request header, repeatable',
  '  --timeout SECONDS        give up after this long (default 30)',
  '  --json                   machine-readable output on stdout',
].join('\n');

export interface Connection {
  url: string;
  protocol: 'mcp' | 'a2a' | 'auto';
  headers: Record<string, string>;
  auth?: string;
  timeoutMs: number;
}

const PROTOCOLS = ['mcp', 'a2a', 'auto'] as const;

/** Checks the agent URL and the connection flags; throws UsageError with the fix. */
export function readConnection(
  url: string,
  values: { protocol?: string; auth?: string; header?: string[]; timeout?: string },
  io: CliIo,
  defaultTimeoutMs = 30_000,
): Connection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`'${printable(url)}' is not a URL; give the agent's address, like http://127.0.0.1:3000/mcp.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`'${printable(url)}' is not an http(s) URL.`);
  }
  const protocol = values.protocol ?? 'auto';
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new UsageError(`--protocol takes mcp, a2a or auto, not '${printable(protocol)}'.`);
  }
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header takes 'Name: value', not '${printable(header)}'.`);
    }
    headers[name.toLowerCase()] = header.slice(colon + 1).trim();
  }
  const auth = values.auth ?? io.env['ADCP_AUTH_TOKEN'];
  const connection: Connection = {
    url: parsed.href,
    protocol: protocol as Connection['protocol'],
    headers,
    timeoutMs: parseSeconds('timeout', values.timeout) ?? defaultTimeoutMs,
  };
  if (auth !== undefined && auth !== '') connection.auth = auth;
  return connection;
}
