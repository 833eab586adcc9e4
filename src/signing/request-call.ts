import { a2aMethodRoute } from '../core/a2a-wire.js';
import { isJsonObject } from '../core/json-object.js';

/**
 * What a JSON-RPC request body asks for, as the request-signing pre-check needs it
 * (security.md, "Protocol-method coverage"): the JSON-RPC `method`, and for an AdCP call the
 * AdCP operation name (MCP `tools/call` `params.name`, or the A2A invocation's DataPart `skill`)
 * with its arguments. The two namespaces never cross: a `tools/call` is never a protocol method.
 */
export interface RequestCall {
  /** The JSON-RPC `method` (`tools/call`, `message/send`, `tasks/cancel`, ...). */
  method?: string;
  /** The AdCP operation, only when `method` is an AdCP invocation. */
  operation?: string;
  /** The operation's arguments (MCP `arguments`, A2A `input`). */
  args?: Record<string, unknown>;
}

/** A2A methods that carry an AdCP invocation: send and stream, on either wire. */
function isA2ASend(method: string): boolean {
  const operation = a2aMethodRoute(method)?.operation;
  return operation === 'send' || operation === 'stream';
}

/** Reads one parsed JSON-RPC request; `{}` for anything else (a batch, a response, not JSON-RPC). */
export function describeRequestCall(body: unknown): RequestCall {
  if (!isJsonObject(body) || typeof body.method !== 'string') return {};
  const method = body.method;
  const params = isJsonObject(body.params) ? body.params : {};
  if (method === 'tools/call') {
    if (typeof params.name !== 'string') return { method };
    return { method, operation: params.name, args: isJsonObject(params.arguments) ? params.arguments : {} };
  }
  if (isA2ASend(method)) {
    const message = isJsonObject(params.message) ? params.message : {};
    const parts = Array.isArray(message.parts) ? message.parts : [];
    const data = parts
      .filter(isJsonObject)
      .map((part) => part.data)
      .filter(isJsonObject);
    const invocation = data.length === 1 ? data[0] : undefined;
    if (invocation === undefined || typeof invocation.skill !== 'string') return { method };
    return { method, operation: invocation.skill, args: isJsonObject(invocation.input) ? invocation.input : {} };
  }
  return { method };
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
