import { requiresIdempotencyKey as manifestRequiresKey } from '../../core/tool-table.js';
import type { AdcpToolDefinition } from '../types.js';

/**
 * Whether a tool refuses a call without `idempotency_key` (security.md, "Idempotency": required on
 * every state-mutating task): the tool's own `mutating`, else what the manifests of the served
 * releases say (`requiresIdempotencyKey` in `core/tool-table.ts`, the fact the client reads too).
 */
export function requiresIdempotencyKey(tool: AdcpToolDefinition, releases: readonly string[]): boolean {
  return tool.mutating ?? manifestRequiresKey(tool.name, releases);
}
