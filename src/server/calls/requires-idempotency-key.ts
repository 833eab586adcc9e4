import { ADCP_TOOLS } from '../../core/tool-table.js';
import { loadSchemaBundle } from '../../schemas/schema-bundle.js';
import type { AdcpToolDefinition } from '../types.js';

/**
 * Whether a tool refuses a call without `idempotency_key` (security.md, "Idempotency": required on
 * every state-mutating task): the tool's own `mutating`, else the schema manifest of a served
 * release, where the tool is `mutating` and its request schema requires the key (the manifest also
 * marks `si_terminate_session` and `comply_test_controller` mutating, whose schemas leave the key
 * out: the schema decides; docs/decisions/0041). Without schemas on disk, the library's tool table.
 */
export function requiresIdempotencyKey(tool: AdcpToolDefinition, releases: readonly string[]): boolean {
  if (tool.mutating !== undefined) return tool.mutating;
  let known = false;
  for (const release of releases) {
    try {
      const bundle = loadSchemaBundle(release);
      const entry = bundle.tool(tool.name);
      if (entry === undefined) continue;
      known = true;
      const required = (bundle.schema(entry.request) as { required?: unknown }).required;
      if (entry.mutating && Array.isArray(required) && required.includes('idempotency_key')) return true;
    } catch {
      // no schemas for this release: the others, or the table, decide
    }
  }
  if (known) return false;
  return Object.hasOwn(ADCP_TOOLS, tool.name) && ADCP_TOOLS[tool.name]?.readOnly === false;
}
