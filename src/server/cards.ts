import { ADCP_PROFILE_URI } from '../core/a2a-wire.js';
import type { JsonObject } from '../core/types.js';
import type { AdcpToolDefinition } from './types.js';

export interface CardInput {
  name: string;
  version: string;
  description: string;
  adcpVersion: string;
  cardMeta: JsonObject;
  mcpTools: AdcpToolDefinition[];
  a2aTools: AdcpToolDefinition[];
  mcpUrl: string;
  a2aUrl: string;
}

/**
 * The MCP server card served at `/.well-known/mcp.json` and `/.well-known/server.json`
 * (mcp-guide, "AdCP Extension via MCP Server Card"), AdCP metadata under `_meta["adcontextprotocol.org"]`.
 */
export function buildServerCard(input: CardInput): JsonObject {
  return {
    name: input.name,
    version: input.version,
    title: input.name,
    description: input.description,
    remotes: [{ type: 'streamable-http', url: input.mcpUrl }],
    tools: input.mcpTools.map((tool) => ({ name: tool.name })),
    _meta: {
      'adcontextprotocol.org': {
        adcp_version: input.adcpVersion,
        protocols_supported: ['media_buy'],
        ...input.cardMeta,
      },
    },
  };
}

/**
 * The A2A agent card: 1.0 `supportedInterfaces` (1.0 first, then 0.3 on the same endpoint, which
 * answers both wires) plus the v0.3 top-level `url`/`preferredTransport`/`protocolVersion`, so
 * clients of either major read it (a2a-guide, "Dual-Advertising for v0.3 Compatibility").
 */
export function buildAgentCard(input: CardInput): JsonObject {
  return {
    name: input.name,
    description: input.description,
    version: input.version,
    protocolVersion: '0.3.0',
    url: input.a2aUrl,
    preferredTransport: 'JSONRPC',
    supportedInterfaces: [
      { url: input.a2aUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: input.a2aUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: ADCP_PROFILE_URI, description: 'AdCP structured task invocation profile', required: true }],
    },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: input.a2aTools.map((tool) => ({
      id: tool.name,
      name: tool.name,
      description: tool.description,
      tags: tool.tags ?? ['adcp'],
    })),
  };
}
