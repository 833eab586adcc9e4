import { ADCP_PROFILE_URI } from '../../core/a2a-wire.js';
import type { JsonObject } from '../../core/types.js';
import type { AdcpToolDefinition } from '../types.js';

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
  /** The interface that serves callers who do not activate the profile. */
  a2aLegacyUrl: string;
  /** `securitySchemes`, `security`, `securityRequirements` (see `agentCardSecurity`); empty when open. */
  security?: JsonObject;
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
 * The A2A agent card (a2a-profile-extension.md, "Advertisement and activation"): the profile under
 * `capabilities.extensions[]` with no `params`, every AdCP task as an `AgentSkill.id`.
 * - `profile` (served at `/.well-known/agent-card.json`): the profile `required: true`; 1.0 then
 *   0.3 on the A2A endpoint, plus the v0.3 top-level `url`/`preferredTransport`/`protocolVersion`
 *   (a2a-guide, "Dual-Advertising for v0.3 Compatibility"), and the legacy interface listed as a
 *   further v0.3 interface (it honours an activated request exactly, so the requirement holds there
 *   too for a caller that reads this card).
 * - `legacy` (served under the legacy interface): the same agent with the profile declared but not
 *   required, the card the incumbent `{ skill, parameters }` clients discover (the profile page:
 *   generic callers get "a separate Agent Card/interface that does not mark this profile required").
 */
export function buildAgentCard(input: CardInput, mode: 'profile' | 'legacy' = 'profile'): JsonObject {
  const url = mode === 'profile' ? input.a2aUrl : input.a2aLegacyUrl;
  const interfaces = [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
  if (mode === 'profile')
    interfaces.push({ url: input.a2aLegacyUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' });
  return {
    name: input.name,
    description: input.description,
    version: input.version,
    protocolVersion: '0.3.0',
    url,
    preferredTransport: 'JSONRPC',
    supportedInterfaces: interfaces,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: ADCP_PROFILE_URI,
          description:
            mode === 'profile'
              ? 'AdCP structured task invocation profile'
              : 'AdCP structured task invocation profile (optional here: unactivated { skill, parameters } messages are also served)',
          required: mode === 'profile',
        },
      ],
    },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    ...input.security,
    skills: input.a2aTools.map((tool) => ({
      id: tool.name,
      name: tool.name,
      description: tool.description,
      tags: tool.tags ?? ['adcp'],
    })),
  };
}
