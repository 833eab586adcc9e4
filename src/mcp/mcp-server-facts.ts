import { isJsonObject } from '../core/json-object.js';
import type { JsonObject } from '../core/types.js';
import type { McpServerFacts } from '../transport/transport.js';
import { MODERN_MCP_REVISION } from './modern-post.js';

/** Names kept from one list, and characters kept of each: a server's lists are not ours to trust. */
const MAX_NAMES = 64;
const MAX_NAME_LENGTH = 200;

/**
 * What a 2026-07-28 server says about itself in its `DiscoverResult` (server-discover.md): the
 * versions it supports, its identity (`_meta["io.modelcontextprotocol/serverInfo"]`), its
 * capabilities and the extensions among them (`capabilities.extensions`).
 */
export function factsFromDiscover(discover: JsonObject): McpServerFacts {
  const facts = baseFacts('modern', discover.capabilities);
  facts.protocolVersion = MODERN_MCP_REVISION;
  if (Array.isArray(discover.supportedVersions)) {
    facts.supportedVersions = names(discover.supportedVersions.filter((v): v is string => typeof v === 'string'));
  }
  const meta = isJsonObject(discover._meta) ? discover._meta : {};
  const server = serverOf(meta['io.modelcontextprotocol/serverInfo']);
  if (server !== undefined) facts.server = server;
  return facts;
}

/** What a 2025-era server said in its `initialize` answer (capabilities, `serverInfo`, the negotiated version). */
export function factsFromInitialize(answer: {
  capabilities: unknown;
  serverInfo: unknown;
  protocolVersion: string | undefined;
  wire: 'streamable-http' | 'sse';
}): McpServerFacts {
  const facts = baseFacts('legacy', answer.capabilities);
  if (answer.protocolVersion !== undefined) facts.protocolVersion = answer.protocolVersion;
  const server = serverOf(answer.serverInfo);
  if (server !== undefined) facts.server = server;
  facts.wire = answer.wire;
  return facts;
}

function baseFacts(era: McpServerFacts['era'], capabilities: unknown): McpServerFacts {
  const all = isJsonObject(capabilities) ? capabilities : {};
  const extensions = isJsonObject(all.extensions) ? Object.keys(all.extensions) : [];
  return {
    era,
    capabilities: names(Object.keys(all).filter((name) => name !== 'extensions')),
    extensions: names(extensions),
  };
}

function serverOf(info: unknown): McpServerFacts['server'] | undefined {
  if (!isJsonObject(info) || typeof info.name !== 'string') return undefined;
  const server: NonNullable<McpServerFacts['server']> = { name: info.name.slice(0, MAX_NAME_LENGTH) };
  if (typeof info.version === 'string') server.version = info.version.slice(0, MAX_NAME_LENGTH);
  return server;
}

function names(list: string[]): string[] {
  return list.slice(0, MAX_NAMES).map((name) => name.slice(0, MAX_NAME_LENGTH));
}
