import type { TaskResult } from '../core/task-result.js';
import type { TaskResultFromMcpOptions } from '../core/task-result-from-mcp.js';
import { taskResultFromJsonRpcError } from '../core/task-result-from-json-rpc.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import { factsOf } from '../core/tool-table.js';
import type { ToolInfo } from '../transport/transport.js';
import { mapMcpTaskStatus } from './map-task-status.js';
import { RpcErrorAnswer } from './rpc-error-answer.js';

/** Pages of `tools/list` read at most (a hostile server could paginate forever). */
export const MAX_TOOL_PAGES = 20;

/** What both eras' transports read answers with: the agent's URL and the credentials the user gave. */
export interface AnswerContext {
  url: string;
  headers?: Record<string, string>;
}

/** Whether requests carry credentials (`AUTH_REQUIRED` then means rejected, not missing). */
export function hasCredentials(context: AnswerContext): boolean {
  return Object.keys(context.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/** How a `CallToolResult` is read into a TaskResult, capped at `maxBytes`. */
export function resultOptions(context: AnswerContext, maxBytes: number): TaskResultFromMcpOptions {
  return { maxBytes, requestHadCredentials: hasCredentials(context) };
}

/**
 * A JSON-RPC error answer (`RpcErrorAnswer`) as a TaskResult when it carries an AdCP error, else
 * thrown as `AdcpWireError`; any other error is rethrown as is.
 */
export function fromRpcError(error: unknown, what: string, context: AnswerContext): TaskResult {
  if (!(error instanceof RpcErrorAnswer)) throw error;
  const rpc = error.error;
  const result = taskResultFromJsonRpcError(rpc, { requestHadCredentials: hasCredentials(context) });
  if (result !== null) return result;
  // SDK servers repeat their McpError's "MCP error <code>: " prefix on the wire: say it once.
  const message = sanitizeSellerText(rpc.message.replace(/^(MCP error -?\d+: )+/, ''), { maxLength: 200 }) ?? '';
  // Invalid params / method not found: the agent understood and said no (an unknown tool or
  // task, a task already finished): an answer, not a failure to talk.
  const refused = rpc.code === -32602 || rpc.code === -32601;
  throw new AdcpWireError(
    refused ? 'refused' : 'protocol',
    `${what} at ${context.url}: ${refused ? 'refused: ' : ''}${message} (JSON-RPC error ${rpc.code})`,
    { cause: error, tool: what, url: context.url },
  );
}

/** The TaskResult of an MCP task that has no `CallToolResult` (input_required, cancelled, still working). */
export function fromBareTask(task: { taskId: string; status: string; statusMessage?: unknown }): TaskResult {
  const base = { data: undefined, protocol: 'mcp' as const, raw: task, transportTaskId: task.taskId };
  const message = sanitizeSellerText(typeof task.statusMessage === 'string' ? task.statusMessage : undefined);
  const withMessage = message === undefined ? base : { ...base, message };
  switch (mapMcpTaskStatus(task.status)) {
    case 'input-required':
      return { ...withMessage, status: 'input-required' };
    case 'canceled':
      return { ...withMessage, status: 'canceled' };
    case 'working':
      return { ...withMessage, status: 'working' };
    case 'submitted':
    case 'completed':
    case 'failed':
    case 'rejected':
    case 'auth-required':
    case null:
      throw new AdcpWireError('protocol', `MCP task ${task.taskId} has an unknown status`, {});
  }
}

/** The TypeError for a `task` asked of a tool whose listing forbids MCP Tasks. */
export function refuseForbiddenTask(tool: string, info: ToolInfo | undefined): void {
  if (info !== undefined && (info.taskSupport ?? 'forbidden') === 'forbidden') {
    throw new TypeError(
      `callTool(${tool}): ${tool} does not take MCP Tasks (its listing says taskSupport: forbidden); call it without task`,
    );
  }
}

/**
 * A listed tool. The 2026 era lists no `execution.taskSupport` (its tasks are server-directed):
 * there the AdCP tool table (the mcp-guide's "Tool-Level Task Support") says it for known tools.
 */
export function toToolInfo(
  tool: {
    name: string;
    description?: string | undefined;
    inputSchema?: unknown;
    execution?: { taskSupport?: string | undefined } | undefined;
  },
  modern = false,
): ToolInfo {
  const info: ToolInfo = { name: tool.name };
  if (tool.description !== undefined) info.description = tool.description;
  if (tool.inputSchema !== null && typeof tool.inputSchema === 'object')
    info.inputSchema = tool.inputSchema as JsonObject;
  const support = tool.execution?.taskSupport ?? (modern ? factsOf(tool.name)?.taskSupport : undefined);
  if (support === 'forbidden' || support === 'optional' || support === 'required') info.taskSupport = support;
  return info;
}
