import { isJsonObject } from '../core/json-object.js';
import type { OperationResolution } from '../core/resolve-operation.js';

/**
 * What a request asks for, as the request-signing pre-check needs it (security.md, "Operation
 * resolution over A2A" and "Protocol-method coverage"): the JSON-RPC `method`, and for an AdCP
 * call the resolved operation (MCP `tools/call` `params.name`, or the A2A invocation's DataPart
 * `skill`) with its arguments. Built only from a resolution (`resolveOperation`), never guessed.
 */
export interface RequestCall {
  /** The JSON-RPC `method` (`tools/call`, `SendMessage`, `tasks/cancel`, ...). */
  method?: string;
  /** The AdCP operation, only when the request is an AdCP invocation. */
  operation?: string;
  /** The operation's arguments (MCP `arguments`, A2A `input`). */
  args?: Record<string, unknown>;
}

/** The call of a resolved request (`{}` for a request with nothing to resolve). */
export function requestCallOf(resolution: OperationResolution): RequestCall {
  if (!resolution.ok || resolution.kind === 'none') return {};
  if (resolution.kind === 'protocol_method') return { method: resolution.method };
  return { method: resolution.method, operation: resolution.operation, args: resolution.args };
}

/**
 * Whether the arguments ask for legacy webhook authentication (`push_notification_config.authentication`,
 * `accounts[].notification_configs[].authentication`, `notification_configs[].authentication`): on a
 * signing-capable seller such a registration must be signed (transport error taxonomy, first row).
 */
export function requestsWebhookAuthentication(args: Record<string, unknown> | undefined): boolean {
  if (args === undefined) return false;
  const hasAuth = (config: unknown): boolean => isJsonObject(config) && config.authentication !== undefined;
  if (hasAuth(args.push_notification_config)) return true;
  const configsOf = (holder: unknown): unknown[] =>
    isJsonObject(holder) && Array.isArray(holder.notification_configs) ? holder.notification_configs : [];
  if (configsOf(args).some(hasAuth)) return true;
  const accounts = Array.isArray(args.accounts) ? args.accounts : [];
  return accounts.some((account) => configsOf(account).some(hasAuth));
}
