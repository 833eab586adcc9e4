import type { OperationResolution } from '../../core/resolve-operation.js';

/** Which endpoint a request came to. */
export type EndpointKind = 'mcp' | 'a2a' | 'a2a-legacy';

/**
 * Whether a caller without credentials may make this call: anything but a call of an operation
 * outside `publicTools` (the resolved operation: MCP `tools/call`, A2A send/stream naming the
 * skill). Protocol discovery (`initialize`, `tools/list`) and task reads pass (tasks are scoped to
 * the caller's principal); an unresolvable call passes too, to get the endpoint's own refusal (it
 * runs no tool: the dispatchers run only a resolved operation).
 */
export function mayCallAnonymously(resolution: OperationResolution, publicTools: ReadonlySet<string>): boolean {
  return !resolution.ok || resolution.kind !== 'operation' || publicTools.has(resolution.operation);
}
