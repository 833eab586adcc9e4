import type { JsonObject } from '../core/types.js';
import { taskSupportFor } from '../core/tool-table.js';
import type { AdcpToolDefinition } from './types.js';

/**
 * The `tools/list` entries of one tool map, for both MCP eras: the input schema (JSON Schema
 * 2020-12 when it names no `$schema`, as the 2026-07-28 revision reads it) and
 * `execution.taskSupport` from the mcp-guide table (the 2025 era's; the SDK v2 server drops it
 * from 2026-era listings, where tasks are server-directed).
 */
export function mcpToolList(tools: ReadonlyMap<string, AdcpToolDefinition>): JsonObject[] {
  return [...tools.values()].map((tool) => {
    const entry: JsonObject = {
      name: tool.name,
      inputSchema: tool.inputSchema ?? { type: 'object', additionalProperties: true },
    };
    if (tool.description !== undefined) entry.description = tool.description;
    entry.execution = { taskSupport: taskSupportFor(tool.name, tool.taskSupport) };
    return entry;
  });
}
