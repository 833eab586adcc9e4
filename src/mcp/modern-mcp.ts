import type { JsonObject } from '../core/types.js';
import { isJsonObject } from '../core/json-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import type { ProgressEvent, TransportCallOptions } from '../transport/transport.js';
import { sleep } from '../transport/sleep.js';
import { checkSameTask, pollDelay } from './task-poll.js';
import { isTerminalMcpTaskStatus, mapMcpTaskStatus } from './map-task-status.js';
import { postModern, type ModernPostOptions } from './modern-post.js';
import { RpcErrorAnswer, toRpcErrorObject } from './rpc-error-answer.js';

/** A Tasks-extension task as the server sent it (SEP-2663, "Tasks"). */
export interface ModernTask extends JsonObject {
  taskId: string;
  status: string;
}

/** Where a modern call ended: the `CallToolResult`, or a task without one (working, cancelled, input). */
export interface ModernOutcome {
  task?: ModernTask;
  result?: JsonObject;
}

export interface ModernMcpOptions {
  url: string;
  fetch: typeof fetch;
  headers?: Record<string, string>;
}

/**
 * MCP 2026-07-28 calls for AdcpClient: stateless, one POST per request, no session to open.
 * Tools answer directly or, when the server decides, with a Tasks-extension task that is polled
 * (`tasks/get`, honouring `pollIntervalMs`) to its end; an aborted wait cancels it (best effort).
 */
export class ModernMcp {
  readonly #options: ModernMcpOptions;

  constructor(options: ModernMcpOptions) {
    this.#options = options;
  }

  post(method: string, params: JsonObject, call: TransportCallOptions, name?: string): Promise<JsonObject> {
    const options: ModernPostOptions = { ...this.#options, maxBytes: call.maxBytes };
    if (call.signal !== undefined) options.signal = call.signal;
    if (name !== undefined) options.name = name;
    const onProgress = call.onProgress;
    if (onProgress !== undefined && method === 'tools/call') {
      options.onNotification = (message) => {
        if (message.method === 'notifications/progress' && isJsonObject(message.params))
          onProgress(progressOf(message.params));
      };
    }
    return postModern(method, params, options);
  }

  async callTool(tool: string, args: JsonObject, call: TransportCallOptions): Promise<ModernOutcome> {
    // A progress token asks for `notifications/progress` on the answer's stream.
    const meta = call.onProgress === undefined ? {} : { _meta: { progressToken: `p-${tool}` } };
    // The message last shown, so a report sent as a notification and then kept as the task's
    // statusMessage reaches the caller once.
    let shown: string | undefined;
    const onProgress = call.onProgress;
    const request =
      onProgress === undefined
        ? call
        : {
            ...call,
            onProgress: (event: ProgressEvent) => {
              shown = event.message ?? shown;
              onProgress(event);
            },
          };
    const answer = await this.post('tools/call', { name: tool, arguments: args, ...meta }, request, tool);
    if (answer.resultType !== 'task') return { result: answer };
    const task = toTask(answer, this.#options.url);
    const message = messageOf(task);
    onProgress?.(taskProgress(task, message !== shown));
    return this.follow(task, call, message ?? shown);
  }

  async getTask(taskId: string, call: TransportCallOptions): Promise<ModernOutcome> {
    return outcomeOf(await this.#taskState(taskId, call));
  }

  /**
   * Cancels a task. The server acknowledges even a task that already ended (SEP-2663); as on the
   * 2025 era, cancelling one that ended is refused here (-32602), after asking for its state.
   */
  async cancelTask(taskId: string, call: TransportCallOptions): Promise<ModernOutcome> {
    const before = await this.#taskState(taskId, call);
    if (isTerminalMcpTaskStatus(before.status)) {
      throw new RpcErrorAnswer(
        { code: -32602, message: `Task ${taskId} is already in a terminal status: ${before.status}` },
        'tasks/cancel',
      );
    }
    await this.post('tasks/cancel', { taskId }, call, taskId);
    return this.getTask(taskId, call);
  }

  /**
   * Polls a task until it ends or needs input; a failed task rejects with its JSON-RPC error.
   * `shown` is the status message the caller has already seen.
   */
  async follow(first: ModernTask, call: TransportCallOptions, shown = messageOf(first)): Promise<ModernOutcome> {
    let task = first;
    let status = task.status;
    let message = shown;
    try {
      while (!isTerminalMcpTaskStatus(task.status) && task.status !== 'input_required') {
        await sleep(pollDelay(task.pollIntervalMs), call.signal);
        task = await this.#taskState(task.taskId, call);
        // The Tasks extension has no progress notifications: a new status or status message
        // (where `ctx.working` goes on this era) is the progress event, each message once.
        const now = messageOf(task);
        const fresh = now !== undefined && now !== message;
        if (fresh || task.status !== status) call.onProgress?.(taskProgress(task, fresh));
        status = task.status;
        message = now ?? message;
      }
    } catch (error) {
      if (call.signal?.aborted === true) {
        const quiet = { maxBytes: 64 * 1024, signal: AbortSignal.timeout(2_000) };
        void this.post('tasks/cancel', { taskId: task.taskId }, quiet, task.taskId).catch(() => undefined);
      }
      throw error;
    }
    return outcomeOf(task);
  }

  /** `tasks/get` for `taskId`: an answer about another task is refused, never taken for this one. */
  async #taskState(taskId: string, call: TransportCallOptions): Promise<ModernTask> {
    const url = this.#options.url;
    const task = toTask(await this.post('tasks/get', { taskId }, call, taskId), url);
    checkSameTask(taskId, task.taskId, url);
    return task;
  }
}

function outcomeOf(task: ModernTask): ModernOutcome {
  if (task.status === 'completed' && isJsonObject(task.result)) return { task, result: task.result };
  if (task.status === 'failed') {
    const error = toRpcErrorObject(task.error) ?? { code: -32603, message: 'the task failed without an error' };
    throw new RpcErrorAnswer(error, `task ${task.taskId}`);
  }
  return { task };
}

function toTask(value: JsonObject, url: string): ModernTask {
  if (typeof value.taskId !== 'string' || typeof value.status !== 'string' || mapMcpTaskStatus(value.status) === null) {
    throw new AdcpWireError('protocol', `the MCP server at ${url} sent a task without a valid taskId and status`, {
      url,
    });
  }
  return value as ModernTask;
}

/** The task's status message, made safe to show. */
function messageOf(task: ModernTask): string | undefined {
  return sanitizeSellerText(typeof task.statusMessage === 'string' ? task.statusMessage : undefined);
}

function taskProgress(task: ModernTask, withMessage = true): ProgressEvent {
  const event: ProgressEvent = {
    lifecycle: 'mcp',
    status: mapMcpTaskStatus(task.status) ?? 'unknown',
    taskId: task.taskId,
  };
  const message = withMessage ? messageOf(task) : undefined;
  if (message !== undefined) event.message = message;
  return event;
}

function progressOf(params: JsonObject): ProgressEvent {
  const event: ProgressEvent = { lifecycle: 'mcp', status: 'working' };
  const { progress, total } = params;
  if (typeof progress === 'number' && typeof total === 'number' && total > 0) {
    event.percentage = Math.min(100, (progress / total) * 100);
  }
  const message = sanitizeSellerText(typeof params.message === 'string' ? params.message : undefined);
  if (message !== undefined) event.message = message;
  return event;
}
