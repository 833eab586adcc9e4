import type { TaskResult } from '../core/task-result.js';
import { taskResultFromMcp } from '../core/task-result-from-mcp.js';
import { taskResultFromJsonRpcError } from '../core/task-result-from-json-rpc.js';

export interface ToResultOptions {
  maxBytes: number;
  /** Whether the request carried credentials (`AUTH_REQUIRED` then means rejected, not missing). */
  requestHadCredentials: boolean;
  transportTaskId?: string;
}

/** The TaskResult of an MCP `CallToolResult`: core's `taskResultFromMcp` with the call's byte cap. */
export function resultFromCallTool(raw: unknown, options: ToResultOptions): TaskResult {
  return taskResultFromMcp(raw, options);
}

/** The `failed` TaskResult of a JSON-RPC error with `data.adcp_error`, or `null` when it has none. */
export function resultFromJsonRpcError(error: unknown, options: ToResultOptions): TaskResult | null {
  return taskResultFromJsonRpcError(error, { requestHadCredentials: options.requestHadCredentials });
}
