import { AdcpWireError } from '../core/wire-error.js';
import type { TaskResult } from '../core/task-result.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import type { RpcErrorObject } from './json-rpc.js';
import type { A2AEndpoint, A2AWire } from './select-interface.js';
import { TASK_NOT_FOUND, VERSION_NOT_SUPPORTED } from '../core/a2a-wire.js';
import { taskResultFromJsonRpcError } from '../core/task-result-from-json-rpc.js';
import { A2A_PROFILE_ERROR_CODES, type A2AProfileErrorCode } from '../core/a2a-profile.js';
import { isPlainObject } from '../core/plain-object.js';

/**
 * JSON-RPC errors that are the agent saying no rather than failing: invalid params, method not
 * found, and A2A's task not cancelable (-32002), push notifications (-32003), unsupported
 * operation (-32004) and content type (-32005) errors.
 */
const REFUSALS = new Set([-32602, -32601, -32002, -32003, -32004, -32005]);
const TASK_NOT_CANCELABLE = -32002;

/**
 * @a2a-js/sdk 0.3's Express handler bundles a second copy of its `A2AError` class, so the request
 * handler's "Task not found" and "Task not cancelable" errors fail its `instanceof` check and reach
 * the wire as -32603 internal errors carrying the SDK's own words (sellers built on `@adcp/sdk`
 * 6.x's A2A adapter answer so). Those words name the code they stand for.
 */
function sdkWrappedCode(error: RpcErrorObject): number {
  if (error.code !== -32603 || typeof error.message !== 'string') return error.code;
  if (/^Task not found: /.test(error.message)) return TASK_NOT_FOUND;
  if (/^Task not cancelable: /.test(error.message)) return TASK_NOT_CANCELABLE;
  return error.code;
}

/**
 * What a JSON-RPC error means for the caller: a `failed` TaskResult when it carries an
 * `adcp_error` (transport-errors.md step 4); otherwise throws `unsupported_version` (-32009),
 * `not_found` (-32001), `refused` (see `REFUSALS`) or `protocol` (anything else; -32603 internal
 * error is retryable).
 */
export function rpcErrorToResult(
  error: RpcErrorObject,
  endpoint: A2AEndpoint,
  tool: string | undefined,
  pin: 'auto' | A2AWire,
): TaskResult {
  const result = taskResultFromJsonRpcError(error, { protocol: 'a2a' });
  if (result !== null) return result;
  const where = `${tool ?? 'A2A request'} at ${endpoint.url}`;
  const said = sanitizeSellerText(error.message, { maxLength: 200 });
  const detail = `JSON-RPC error ${error.code}${said === undefined || said === '' ? '' : ` "${said}"`}`;
  const rule = profileRuleOf(error.data);
  const options = {
    url: endpoint.url,
    ...(tool === undefined ? {} : { tool }),
    ...(rule === undefined ? {} : { rule }),
  };
  if (error.code === VERSION_NOT_SUPPORTED) {
    const pinned = pin === 'auto' ? '' : `; this client is pinned to A2A ${pin}`;
    throw new AdcpWireError(
      'unsupported_version',
      `${where}: the agent does not accept A2A ${endpoint.wire} (${detail})${pinned}`,
      options,
    );
  }
  const code = sdkWrappedCode(error);
  if (code === TASK_NOT_FOUND) throw new AdcpWireError('not_found', `${where}: task not found (${detail})`, options);
  if (REFUSALS.has(code)) throw new AdcpWireError('refused', `${where}: refused (${detail})`, options);
  throw new AdcpWireError('protocol', `${where}: ${detail}`, {
    ...options,
    cause: error,
    retryable: error.code === -32603,
  });
}

/**
 * The AdCP A2A profile rule a refusal names: `metadata.profile_error` of a `google.rpc.ErrorInfo`
 * in `error.data` (how a profiled agent says which rule the request broke), when it is a known rule.
 */
export function profileRuleOf(data: unknown): A2AProfileErrorCode | undefined {
  const details = Array.isArray(data) ? data.slice(0, 8) : [data];
  for (const detail of details) {
    const metadata = isPlainObject(detail) ? detail['metadata'] : undefined;
    const rule = isPlainObject(metadata) ? metadata['profile_error'] : undefined;
    if ((A2A_PROFILE_ERROR_CODES as readonly unknown[]).includes(rule)) return rule as A2AProfileErrorCode;
  }
  return undefined;
}
