import type { JsonObject } from '../../core/types.js';
import { taskSupportFor } from '../../core/tool-table.js';
import { toolInputSchema, toolOutputSchema } from '../../schemas/discovery-schemas.js';
import { AdcpSchemaError } from '../../schemas/schema-error.js';
import type { AdcpToolDefinition } from '../types.js';

const OPEN_OBJECT = { type: 'object', additionalProperties: true } as const;

/** Which discovery schemas an AdCP tool gets. */
export interface ToolListOptions {
  /** The release whose schemas describe AdCP tools (the server's default release). */
  release?: string;
  /** Also publish each AdCP tool's `outputSchema`. */
  outputSchemas?: boolean;
}

/**
 * The `tools/list` entries of one tool map, for both MCP eras (JSON Schema 2020-12, as the
 * 2026-07-28 revision reads it): an AdCP tool (a name in the
 * release's manifest) without a seller-written `inputSchema` gets the release's discovery schema
 * (schemas.md, "MCP 2026 tool-schema projection"), and with `outputSchemas` its `outputSchema`;
 * other tools get theirs, or an open object. `execution.taskSupport` comes from the mcp-guide
 * table (the SDK v2 server drops it from 2026-era listings, where tasks are server-directed).
 */
export function mcpToolList(
  tools: ReadonlyMap<string, AdcpToolDefinition>,
  options: ToolListOptions = {},
): JsonObject[] {
  return [...tools.values()].map((tool) => {
    const release = options.release;
    const input =
      tool.inputSchema ?? (release === undefined ? undefined : orNone(() => toolInputSchema(tool.name, release)));
    const entry: JsonObject = { name: tool.name, inputSchema: input ?? OPEN_OBJECT };
    if (tool.description !== undefined) entry.description = tool.description;
    if (options.outputSchemas === true && release !== undefined) {
      const output = orNone(() => toolOutputSchema(tool.name, release));
      if (output !== undefined) entry.outputSchema = output;
    }
    entry.execution = { taskSupport: taskSupportFor(tool.name, tool.taskSupport) };
    return entry;
  });
}

function orNone<T>(read: () => T | undefined): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof AdcpSchemaError) return undefined; // no schemas on disk: listed without them
    throw error;
  }
}
