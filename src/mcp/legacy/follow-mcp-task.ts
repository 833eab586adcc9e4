import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  GetTaskResultSchema,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { sanitizeSellerText } from '../../core/sanitize.js';
import type { ProgressEvent } from '../../transport/transport.js';
import { sleep as abortableSleep } from '../../transport/sleep.js';
import { abortReason } from '../../transport/abort-reason.js';
import { isTerminalMcpTaskStatus, mapMcpTaskStatus } from '../map-task-status.js';
import type { McpSession } from './mcp-session.js';
import { NO_SDK_TIMEOUT, sendRequest } from './send-request.js';
import { checkSameTask, pollDelay } from '../task-poll.js';

export interface FollowTaskOptions {
  session: McpSession;
  url: string;
  maxBytes: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** Injected for tests; resolves after `ms`, rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Where an MCP Task ended: its last state, and the `CallToolResult` when it has one. */
export interface McpTaskOutcome {
  task: Task;
  result?: CallToolResult;
}

/**
 * Follows an MCP Task (2025-11-25 experimental API): `tasks/get` every `pollInterval` until the
 * task is `completed`, `failed` or `cancelled` (or `input_required`, which goes back to the
 * caller), then `tasks/result` for completed and failed ones. When the caller's signal aborts,
 * sends `tasks/cancel` (best effort) before rejecting.
 */
export async function followMcpTask(first: Task, options: FollowTaskOptions): Promise<McpTaskOutcome> {
  const { session, url, maxBytes, signal } = options;
  const sleep = options.sleep ?? abortableSleep; // its rejection is replaced by abortReason below
  const taskId = first.taskId;
  let task = first;
  try {
    while (!isTerminalMcpTaskStatus(task.status) && task.status !== 'input_required') {
      await sleep(pollDelay(task.pollInterval), signal);
      task = await getMcpTask(session, taskId, { url, maxBytes, ...(signal ? { signal } : {}) });
      options.onProgress?.(progressOf(task));
    }
    if (task.status !== 'completed' && task.status !== 'failed') return { task };
    const result = await sendRequest(
      session,
      { maxBytes, what: 'tasks/result', url, ...(signal ? { signal } : {}) },
      (client, s) =>
        client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, {
          signal: s,
          timeout: NO_SDK_TIMEOUT,
        }),
    );
    return { task, result };
  } catch (error) {
    if (signal?.aborted !== true) throw error;
    await cancelMcpTask(session, taskId, { url, maxBytes }).catch(() => undefined);
    throw abortReason(signal.reason);
  }
}

/** `tasks/get`: the current state of an MCP Task (an answer about another task is refused). */
export async function getMcpTask(
  session: McpSession,
  taskId: string,
  options: { url: string; maxBytes: number; signal?: AbortSignal },
): Promise<Task> {
  const task = await sendRequest(session, { ...options, what: 'tasks/get' }, (client, s) =>
    client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema, {
      signal: s,
      timeout: NO_SDK_TIMEOUT,
    }),
  );
  checkSameTask(taskId, task.taskId, options.url);
  return task;
}

/** `tasks/cancel`, bounded to 10 s when the caller gives no signal. */
export async function cancelMcpTask(
  session: McpSession,
  taskId: string,
  options: { url: string; maxBytes: number; signal?: AbortSignal },
): Promise<Task> {
  const signal = options.signal ?? AbortSignal.timeout(10_000);
  const task = await sendRequest(session, { ...options, signal, what: 'tasks/cancel' }, (client, s) =>
    client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema, {
      signal: s,
      timeout: NO_SDK_TIMEOUT,
    }),
  );
  checkSameTask(taskId, task.taskId, options.url);
  return task;
}

function progressOf(task: Task): ProgressEvent {
  const event: ProgressEvent = {
    lifecycle: 'mcp',
    status: mapMcpTaskStatus(task.status) ?? 'unknown',
    taskId: task.taskId,
  };
  const message = sanitizeSellerText(task.statusMessage);
  if (message !== undefined) event.message = message;
  return event;
}
