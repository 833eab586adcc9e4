import type { AdcpToolDefinition } from './types.js';

/**
 * The `get_adcp_capabilities` an A2A interface serves when the seller defines none: the profile
 * requires that skill id on every profiled interface (a2a-profile-extension.md, "Runtime
 * discovery"). It states only what the server knows: the AdCP release it speaks and the
 * protocols the card metadata names. A seller's own tool of the same name replaces it.
 */
export function defaultCapabilitiesTool(adcpVersion: string, protocols: string[]): AdcpToolDefinition {
  const major = Number.parseInt(adcpVersion, 10);
  return {
    name: 'get_adcp_capabilities',
    description: 'Runtime AdCP capabilities: the AdCP versions and protocols this agent supports.',
    taskSupport: 'forbidden',
    protocols: ['a2a'],
    handler: () => ({
      adcp: { major_versions: [Number.isInteger(major) && major > 0 ? major : 3], supported_versions: [adcpVersion] },
      supported_protocols: protocols,
    }),
  };
}
