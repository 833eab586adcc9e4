import type { JsonObject } from '../core/types.js';
import { taskSupportFor } from '../core/tool-table.js';
import type { AdcpToolDefinition } from './types.js';

/**
 * The `tools/list` entries of one tool map, for either MCP era. Both eras list the same input
 * schema (JSON Schema 2020-12 when it names no `$schema`, as the 2026-07-28 revision reads it);
 * the 2025 era adds `execution.taskSupport` (experimental Tasks), which the 2026 Tasks
 * extension replaced with server-directed tasks.
 */
export function mcpToolList(tools: ReadonlyMap<string, AdcpToolDefinition>, era: 'legacy' | 'modern'): JsonObject[] {
  return [...tools.values()].map((tool) => {
    const entry: JsonObject = {
      name: tool.name,
      inputSchema: tool.inputSchema ?? { type: 'object', additionalProperties: true },
    };
    if (tool.description !== undefined) entry.description = tool.description;
    if (era === 'legacy') entry.execution = { taskSupport: taskSupportFor(tool.name, tool.taskSupport) };
    return entry;
  });
}
