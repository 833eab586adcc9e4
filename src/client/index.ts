/**
 * `adcp-wire/client`: call any AdCP agent over MCP or A2A. The transports load on first use,
 * so importing this costs little and loads neither SDK.
 */
export { AdcpClient, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES } from './adcp-client.js';
export type { AdcpClientOptions, CallOptions, WaitOptions, RetryOptions, Clock } from './client-options.js';
export type { DiscoverResult } from './discover.js';
export type {
  AdcpTransport,
  TransportCallOptions,
  TransportOptions,
  ProgressEvent,
  ToolInfo,
  CardInfo,
  McpServerFacts,
} from '../transport/transport.js';
export { createTransport } from './create-transport.js';
export { createInMemoryTransport, type InMemoryTransportOptions, type InMemoryHandler } from './in-memory-transport.js';
export { DEFAULT_RETRY } from './retry.js';
export { AdcpValidationError } from './validation-error.js';
export { AdcpVersionError } from './negotiate-release.js';
export { agentCapabilities, type AgentCapabilitiesOptions } from './agent-capabilities.js';
export type { ResponseCheck } from '../core/task-result.js';
