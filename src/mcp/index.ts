import type { AdcpTransport, TransportOptions } from '../transport/transport.js';
import { McpTransport } from './mcp-transport.js';
import type { McpStart } from './mcp-start.js';

export { McpTransport } from './mcp-transport.js';
export { readServerCard, adcpCardMeta, SERVER_CARD_PATHS } from './read-server-card.js';
export { mapMcpTaskStatus, isTerminalMcpTaskStatus } from './map-task-status.js';

/**
 * The MCP transport behind AdcpClient (`protocol: 'mcp'`): Streamable HTTP with HTTP+SSE
 * fallback, byte-capped answers, MCP Tasks, server card. Throws `TypeError` for a bad URL.
 * `start` (from `startMcp`, sent before this module and the MCP SDK were loaded) is adopted.
 */
export function createMcpTransport(options: TransportOptions, start?: McpStart): AdcpTransport {
  return new McpTransport(options, start);
}
