import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError, parseSeconds, printable } from './args.js';
import { signingOptionsFromJwk } from '../signing/signing-key-file.js';
import type { RequestSigningOptions } from '../signing/sign-request.js';
import type { CliIo } from './io.js';
import { A2A_WIRE_CHOICES, type A2AWireChoice } from '../core/a2a-wire.js';

/** The options every command that talks to an agent accepts. */
export const CONNECTION_OPTIONS = {
  protocol: { type: 'string' },
  'mcp-era': { type: 'string' },
  'a2a-wire': { type: 'string' },
  auth: { type: 'string' },
  header: { type: 'string', multiple: true },
  'credential-origin': { type: 'string', multiple: true },
  timeout: { type: 'string' },
  'sign-key': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const CONNECTION_HELP = [
  "  --protocol mcp|a2a|auto  which wire to speak (default auto: A2A when the URL is the agent's",
  '                           A2A address by its agent card, MCP otherwise)',
  '  --mcp-era auto|modern|legacy  MCP only: the era to speak (default auto: MCP 2026-07-28',
  '                           when server/discover says the agent is modern, else the 2025 era)',
  '  --a2a-wire auto|1.0|0.3|plain  A2A only: the wire to speak (default auto: 1.0 under the AdCP',
  "                           A2A profile, else the card's v0.3 interface); plain calls an A2A 1.0",
  '                           agent that does not declare the profile, without it',
  '  --auth TOKEN             bearer token (or set ADCP_AUTH_TOKEN, kept out of shell history)',
  '  --header K:V             extra request header, repeatable',
  '  --credential-origin URL  another origin --auth and --header may be sent to (an A2A card',
  '                           listing its interface there), repeatable; any other is refused',
  '  --timeout SECONDS        give up after this long (default 30)',
  '  --sign-key FILE          sign every request (RFC 9421, AdCP request profile) with this',
  '                           private JWK (from adcp signing generate)',
  '  --json                   machine-readable output on stdout',
].join('\n');

export interface Connection {
  url: string;
  protocol: 'mcp' | 'a2a' | 'auto';
  /** MCP era: probed (`auto`) or pinned. */
  mcpEra?: 'auto' | 'modern' | 'legacy';
  /** A2A wire: chosen from the card (`auto`), pinned, or `plain` 1.0 without the AdCP profile. */
  a2aWire?: A2AWireChoice;
  headers: Record<string, string>;
  auth?: string;
  /** Origins besides the URL's that the credentials may go to. */
  credentialOrigins?: string[];
  timeoutMs: number;
  signing?: RequestSigningOptions;
  /** `adcp call --validate`: the request before sending and the answer after, against the release's schemas. */
  validate?: 'both';
}

const PROTOCOLS = ['mcp', 'a2a', 'auto'] as const;

/** Checks the agent URL and the connection flags; throws UsageError with the fix. */
export function readConnection(
  url: string,
  values: {
    protocol?: string;
    'mcp-era'?: string;
    'a2a-wire'?: string;
    auth?: string;
    header?: string[];
    'credential-origin'?: string[];
    timeout?: string;
    'sign-key'?: string;
  },
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
  const era = values['mcp-era'];
  if (era !== undefined) {
    if (era !== 'auto' && era !== 'modern' && era !== 'legacy') {
      throw new UsageError(`--mcp-era takes auto, modern or legacy, not '${printable(era)}'.`);
    }
    connection.mcpEra = era;
  }
  const wire = values['a2a-wire'];
  if (wire !== undefined) {
    if (!(A2A_WIRE_CHOICES as readonly string[]).includes(wire)) {
      throw new UsageError(`--a2a-wire takes auto, 1.0, 0.3 or plain, not '${printable(wire)}'.`);
    }
    connection.a2aWire = wire as A2AWireChoice;
  }
  if (auth !== undefined && auth !== '') connection.auth = auth;
  if (values['sign-key'] !== undefined) connection.signing = readSigningKey(values['sign-key'], io);
  const origins = values['credential-origin'] ?? [];
  for (const origin of origins) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(origin).protocol);
    } catch {
      ok = false;
    }
    if (!ok)
      throw new UsageError(
        `--credential-origin takes an http(s) origin, like https://api.seller.example, not '${printable(origin)}'.`,
      );
  }
  if (origins.length > 0) connection.credentialOrigins = origins;
  return connection;
}

/** The private JWK of `--sign-key FILE`; UsageError saying what is wrong (never echoing the key). */
function readSigningKey(file: string, io: CliIo): RequestSigningOptions {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path.resolve(io.cwd, file), 'utf8'));
  } catch {
    throw new UsageError(`--sign-key ${printable(file)} is not a readable JSON file.`);
  }
  try {
    return signingOptionsFromJwk(value);
  } catch (error) {
    throw new UsageError(`--sign-key ${printable(file)}: ${error instanceof Error ? error.message : String(error)}.`);
  }
}
