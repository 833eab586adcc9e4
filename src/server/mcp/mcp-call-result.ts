import type { JsonObject } from '../../core/types.js';
import type { AdcpAnswer } from '../calls/invoke-tool.js';
import { terseText } from '../calls/invoke-tool.js';

/** An MCP `CallToolResult` as both eras spell it (no SDK type: both SDK majors accept it). */
export interface McpCallToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: JsonObject;
  isError?: true;
}

/**
 * The MCP result for an AdCP answer (mcp-guide, "MCP Response Format"; transport-errors.md,
 * "Tool-Level Errors"): flat `structuredContent` plus one terse text item; an error also gets
 * the `{ adcp_error }` JSON text item first.
 */
export function toCallToolResult(toolName: string, answer: AdcpAnswer): McpCallToolResult {
  const text = terseText(toolName, answer);
  if (!answer.isError) return { structuredContent: answer.body, content: [{ type: 'text', text }] };
  return {
    isError: true,
    structuredContent: answer.body,
    content: [
      { type: 'text', text: JSON.stringify({ adcp_error: answer.body.adcp_error }) },
      { type: 'text', text },
    ],
  };
}
