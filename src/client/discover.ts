import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { adcpCardMeta } from '../mcp/read-server-card.js';
import type { AdcpTransport, CardInfo, McpServerFacts, ToolInfo } from '../transport/transport.js';

/** What `AdcpClient.discover()` found. Each part that could not be read says why instead. */
export interface DiscoverResult {
  protocol: 'mcp' | 'a2a';
  /** The MCP server card or A2A agent card (`card.url`, `card.card`, `card.problem`). */
  card: CardInfo;
  /** The card's `_meta["adcontextprotocol.org"]` block (MCP server cards). */
  adcpMeta?: JsonObject;
  /** The `get_adcp_capabilities` answer, when the agent gave one. */
  capabilities?: TaskResult;
  capabilitiesProblem?: string;
  /** Tools (MCP) or skills (A2A), with `taskSupport` on MCP. */
  tools?: ToolInfo[];
  toolsProblem?: string;
  /** MCP: the era spoken and the server's own description (capabilities, extensions, versions). */
  mcp?: McpServerFacts;
  mcpProblem?: string;
}

export interface DiscoverParts {
  transport: AdcpTransport;
  signal: AbortSignal;
  maxBytes: number;
  tools(): Promise<ToolInfo[]>;
  capabilities(): Promise<TaskResult>;
}

/** Reads card, tool list and capabilities side by side; only an abort or timeout of the whole call throws. */
export async function discoverAgent(parts: DiscoverParts): Promise<DiscoverResult> {
  const { transport, signal } = parts;
  const [card, tools, capabilities, mcp] = await Promise.allSettled([
    transport.readCard({ signal, maxBytes: parts.maxBytes }),
    parts.tools(),
    parts.capabilities(),
    transport.mcpServer?.({ signal, maxBytes: parts.maxBytes }),
  ]);
  if (signal.aborted)
    throw signal.reason instanceof Error ? signal.reason : new AdcpWireError('aborted', 'discover was aborted');
  const out: DiscoverResult = {
    protocol: transport.protocol,
    card: card.status === 'fulfilled' ? card.value : { problem: describe(card.reason) },
  };
  const meta = adcpCardMeta(out.card.card);
  if (meta !== undefined) out.adcpMeta = meta;
  if (tools.status === 'fulfilled') out.tools = tools.value;
  else out.toolsProblem = describe(tools.reason);
  if (capabilities.status === 'fulfilled') out.capabilities = capabilities.value;
  else out.capabilitiesProblem = describe(capabilities.reason);
  if (mcp.status === 'rejected') out.mcpProblem = describe(mcp.reason);
  else if (mcp.value !== undefined) out.mcp = mcp.value;
  return out;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : 'unknown failure';
}
