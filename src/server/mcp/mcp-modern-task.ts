import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';
import type { StoredTask } from '../../store/task-store.js';

/** The Tasks extension's identifier (SEP-2663, "Extension Identifier"). */
export const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** True when the request's `_meta` client capabilities declare the Tasks extension. */
export function declaresTasksExtension(envelope: unknown): boolean {
  const capabilities = isJsonObject(envelope) ? envelope['io.modelcontextprotocol/clientCapabilities'] : undefined;
  const extensions = isJsonObject(capabilities) ? capabilities.extensions : undefined;
  return isJsonObject(extensions) && isJsonObject(extensions[MCP_TASKS_EXTENSION]);
}

/**
 * A stored MCP task as the Tasks extension's `DetailedTask` (SEP-2663, "Tasks", "Task Status").
 * `failed` is for JSON-RPC errors only: a tool answer with `isError: true` (an AdCP error answer,
 * which the store keeps as `failed` for the 2025 era) is `completed` with that result here. A
 * task that failed without a result (aborted, its process died) is `failed` with an error.
 */
export function toModernTask(task: StoredTask): JsonObject {
  const out: JsonObject = {
    taskId: task.taskId,
    status: 'working',
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  const result = isJsonObject(task.result) ? task.result : undefined;
  if ((task.status === 'completed' || task.status === 'failed') && result !== undefined) {
    out.status = 'completed';
    // The result is what the call would have answered on this era: every result has a `resultType`.
    out.result = { resultType: 'complete', ...result };
  } else if (task.status === 'failed' || task.status === 'completed') {
    out.status = 'failed';
    out.error = { code: -32603, message: task.statusMessage ?? 'The task failed without a result.' };
  } else if (task.status === 'cancelled' || task.status === 'canceled') {
    out.status = 'cancelled';
  }
  return out;
}
