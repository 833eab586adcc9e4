import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { TaskStore as SdkTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { StoredTask, TaskStore } from '../../store/task-store.js';

/**
 * The owner of MCP Tasks: the principal that created them, not the session (mcp-guide,
 * "Production task isolation"; the MCP Tasks extension binds tasks to an authorization context).
 * A task outlives its session, and any session of the same principal reaches it.
 */
export function mcpTaskOwner(principal: string): string {
  return `mcp:${principal}`;
}

/** A stored MCP task as the MCP `Task` object. */
export function toMcpTask(task: StoredTask): Task {
  const out: Task = {
    taskId: task.taskId,
    status: task.status as Task['status'],
    ttl: task.ttlMs,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    pollInterval: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  return out;
}

/**
 * Presents our owner-scoped TaskStore as the SDK's TaskStore so the SDK answers `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel` from it, scoped to `owner` (one per session's
 * SDK server; the SDK's session id is ignored). `onCancel` lets the server abort the work of a
 * cancelled task.
 */
export function createSdkTaskStore(store: TaskStore, owner: string, onCancel: (taskId: string) => void): SdkTaskStore {
  const notFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  return {
    async createTask(params, _requestId, request) {
      const name = (request.params as { name?: unknown } | undefined)?.name;
      const created = await store.create({
        owner,
        kind: 'mcp',
        requestedTtlMs: params.ttl ?? undefined,
        ...(typeof name === 'string' ? { taskType: name } : {}),
      });
      if (!created.ok) throw new McpError(-32029, 'Task creation rate limit exceeded');
      return toMcpTask(created.task);
    },
    async getTask(taskId) {
      const task = await store.get(owner, taskId);
      return task === undefined || task.kind !== 'mcp' ? null : toMcpTask(task);
    },
    async storeTaskResult(taskId, status, result) {
      const outcome = await store.update(owner, taskId, { status, result });
      if (!outcome.ok && outcome.reason === 'not_found') throw notFound(taskId);
    },
    async getTaskResult(taskId): Promise<Result> {
      const task = await store.get(owner, taskId);
      if (task === undefined || task.kind !== 'mcp') throw notFound(taskId);
      if (task.result === undefined) {
        if (task.status === 'cancelled') {
          return { content: [{ type: 'text', text: 'The task was cancelled.' }], isError: true };
        }
        throw new McpError(ErrorCode.InvalidParams, `Task has no result yet: ${taskId}`);
      }
      return task.result as Result;
    },
    async updateTaskStatus(taskId, status, statusMessage) {
      const outcome =
        status === 'cancelled'
          ? await store.cancel(owner, taskId)
          : await store.update(owner, taskId, { status, ...(statusMessage === undefined ? {} : { statusMessage }) });
      if (!outcome.ok && outcome.reason === 'not_found') throw notFound(taskId);
      if (!outcome.ok) throw new McpError(ErrorCode.InvalidParams, `Task is already in a terminal status: ${taskId}`);
      if (status === 'cancelled') onCancel(taskId);
    },
    async listTasks(cursor) {
      const page = await store.list(owner, {
        kind: 'mcp',
        ...(cursor === undefined ? {} : { cursor }),
      });
      const out: { tasks: Task[]; nextCursor?: string } = { tasks: page.tasks.map(toMcpTask) };
      if (page.nextCursor !== undefined) out.nextCursor = page.nextCursor;
      return out;
    },
  };
}
