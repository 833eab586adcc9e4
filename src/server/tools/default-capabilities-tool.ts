import type { JsonObject } from '../../core/types.js';
import { answerCapabilities } from './capabilities.js';
import type { AdcpToolDefinition } from '../types.js';

/**
 * The server's `get_adcp_capabilities` on MCP and A2A: the document `buildCapabilities` generated
 * from the configuration (a2a-profile-extension.md requires the skill on every profiled
 * interface), narrowed by the caller's `protocols`. A seller's own tool of the same name replaces
 * it; `createAdcpServer({ capabilities })` changes fields without replacing it.
 */
export function defaultCapabilitiesTool(document: JsonObject): AdcpToolDefinition {
  return {
    name: 'get_adcp_capabilities',
    description:
      'Runtime AdCP capabilities: the AdCP versions, protocols, idempotency and signing this agent supports.',
    taskSupport: 'forbidden',
    handler: (args) => structuredClone(answerCapabilities(document, args)),
  };
}
