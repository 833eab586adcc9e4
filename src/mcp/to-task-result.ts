import type { TaskResult } from '../core/task-result.js';
import { extractAdcpResponseFromMcp } from '../core/extract-mcp-response.js';
import { extractAdcpErrorFromMcp, extractAdcpErrorFromJsonRpc } from '../core/extract-error.js';
import { toResultError } from '../core/recovery.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import { normalizeTaskState } from '../core/normalize-task-state.js';

// TEMPORARY composition until core's task-result-from-mcp lands; replaced by a re-export.

/** The TaskResult of an MCP `CallToolResult`. */
export function resultFromCallTool(raw: unknown, maxBytes: number): TaskResult {
  const error = extractAdcpErrorFromMcp(raw);
  if (error !== null) return { status: 'failed', data: undefined, error: toResultError(error), protocol: 'mcp', raw };
  const data = extractAdcpResponseFromMcp(raw, { maxBytes });
  if (data === null) return { status: 'completed', data: undefined, protocol: 'mcp', raw };
  const status = normalizeTaskState(data['status']) ?? 'completed';
  const base = { data, protocol: 'mcp' as const, raw };
  const message = sanitizeSellerText(data['message']);
  const taskId = typeof data['task_id'] === 'string' ? data['task_id'] : undefined;
  const extra = {
    ...(message !== undefined ? { message } : {}),
    ...(taskId !== undefined ? { taskId } : {}),
  };
  if (status === 'failed' || status === 'rejected') {
    return { ...base, ...extra, status, error: toResultError({ code: 'UNKNOWN' }) };
  }
  return { ...base, ...extra, status } as TaskResult;
}

/** The TaskResult of a JSON-RPC error answer, or null when it carries no `adcp_error`. */
export function resultFromJsonRpcError(error: unknown): TaskResult | null {
  const adcp = extractAdcpErrorFromJsonRpc(error);
  if (adcp === null) return null;
  return { status: 'failed', data: undefined, error: toResultError(adcp), protocol: 'mcp', raw: error };
}
