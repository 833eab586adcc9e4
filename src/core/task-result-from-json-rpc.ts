import { isJsonObject } from './json-object.js';
import { extractAdcpErrorFromJsonRpc } from './extract-error.js';
import { assembleResult, baseFields, cleanText, resultErrorFor, type TaskResultOptions } from './result-fields.js';
import type { TaskResult } from './task-result.js';

export interface TaskResultFromJsonRpcOptions extends TaskResultOptions {
  /** The wire the error came over (default `mcp`). */
  protocol?: 'mcp' | 'a2a';
}

/**
 * Builds the `failed` TaskResult of a JSON-RPC error that carries `data.adcp_error` (the reserved
 * codes -32029 RATE_LIMITED, -32028 AUTH_MISSING, -32027 SERVICE_UNAVAILABLE, or any other code),
 * given the whole JSON-RPC response or its `error` member. Returns `null` when there is no valid
 * `adcp_error`: the caller then reports its own `AdcpWireError`. `data` is `undefined` (a JSON-RPC
 * error has no AdCP body); `message` is the sanitised `adcp_error.message`, else `error.message`.
 */
export function taskResultFromJsonRpcError(
  errorOrResponse: unknown,
  options: TaskResultFromJsonRpcOptions = {},
): TaskResult | null {
  const adcpError = extractAdcpErrorFromJsonRpc(errorOrResponse);
  if (adcpError === null) return null;
  const fields = baseFields(options.protocol ?? 'mcp', errorOrResponse, options.transportTaskId);
  // An McpError instance is not a plain object, but carries `message` the same way.
  const outer = isJsonObject(errorOrResponse) ? errorOrResponse : {};
  const rpcError = isJsonObject(outer['error']) ? outer['error'] : outer;
  const message = cleanText(adcpError.message) ?? cleanText(rpcError['message']);
  if (message !== undefined) fields['message'] = message;
  return assembleResult('failed', fields, undefined, resultErrorFor('failed', adcpError, undefined, message, options));
}
