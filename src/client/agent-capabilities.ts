import { AdcpClient } from './adcp-client.js';
import type { AdcpClientOptions } from './client-options.js';

/** Options of `agentCapabilities`: the transport pieces of `ClientOptions` (fetch, protocol, timeout). */
export type AgentCapabilitiesOptions = Pick<AdcpClientOptions, 'fetch' | 'protocol' | 'timeoutMs' | 'maxResponseBytes'>;

/**
 * Reads an agent's `get_adcp_capabilities` answer as a protocol call over its own transport (MCP
 * or A2A, `protocol: 'auto'` by default), for the request-signing verifier's `brand_json_url`
 * chain (`brandJsonKeys({ capabilities: agentCapabilities })`, step 1). The URL must be https;
 * nothing is retried (the chain's negative cache decides when to try again), no credential is
 * sent, and the answer is capped at 256 KiB.
 */
export async function agentCapabilities(url: string, options: AgentCapabilitiesOptions = {}): Promise<unknown> {
  if (new URL(url).protocol !== 'https:') throw new TypeError(`agentCapabilities: ${url} must be https`);
  const client = new AdcpClient({
    url,
    protocol: options.protocol ?? 'auto',
    retry: false,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? 262_144,
    validate: 'off',
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  try {
    const result = await client.call('get_adcp_capabilities', {});
    if (result.status !== 'completed') throw new Error(`get_adcp_capabilities answered ${result.status}`);
    return result.data;
  } finally {
    await client.close().catch(() => undefined);
  }
}
