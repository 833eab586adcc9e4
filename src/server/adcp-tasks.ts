import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../core/types.js';
import type { StoredTask, TaskStore } from '../store/task-store.js';
import { isTerminalTaskStatus } from '../store/task-store.js';
import { AdcpToolError, adcpErrorFromThrown } from './tool-error.js';
import type { ServerWebhooks } from './server-webhooks.js';
import type { AsyncWork } from './types.js';
import { isJsonObject } from '../core/json-object.js';

/** What an AdCP async task keeps in the store's `request` column. */
interface AdcpTaskRequest {
  push?: JsonObject;
  context?: JsonObject;
}

export interface AdcpTaskRunner {
  /** Stores a `submitted` task, starts `work`, and returns the `submitted` body. */
  submit(input: {
    principal: string;
    taskType: string;
    args: JsonObject;
    work: AsyncWork;
    message?: string;
  }): Promise<JsonObject>;
  /** The `get_task_status` / legacy `tasks/get` answer for a task of this principal. */
  status(principal: string, args: JsonObject): Promise<JsonObject>;
  /** How many tasks are still running or still delivering their webhooks (a drain waits for 0). */
  readonly busy: number;
  /**
   * Aborts running work and any webhook still being delivered (a retry backoff included), waits
   * for them to settle, and says what was cut short. With `handOver`, work cut short is not
   * failed here: its task stays unfinished and its lease is released (`TaskStore.releaseLeases`),
   * so another instance on the same store takes it over at once, as it would a dead one's.
   */
  close(options?: { handOver?: boolean }): Promise<ShutdownReport>;
}

/** What closing cut short: tasks whose work was aborted, webhooks given up undelivered. */
export interface ShutdownReport {
  abortedTasks: number;
  undeliveredWebhooks: number;
  /** Tasks left unfinished with their lease released, for another instance (`close({ handOver })`). */
  handedOverTasks?: number;
}

/** The store owner of a principal's AdCP (and A2A) tasks. */
export function principalOwner(principal: string): string {
  return `principal:${principal}`;
}

/** Runs AdCP `submitted` work in the background over the durable task store. */
export function createAdcpTaskRunner(options: {
  store: TaskStore;
  webhooks: ServerWebhooks;
  /** The AdCP protocol a task type belongs to (the manifest's `protocol`), for get_task_status. */
  protocolOf?: (taskType: string) => string | undefined;
}): AdcpTaskRunner {
  const { store, webhooks } = options;
  // `final`: the task's final state is stored; only its webhook may still be on its way.
  const running = new Map<string, { controller: AbortController; done: Promise<void>; final: boolean }>();
  const closing = new AbortController();
  let handingOver = false;
  let undelivered = 0;

  const notify = async (task: StoredTask, status: string, result: JsonObject | undefined, message?: string) => {
    const request = (task.request ?? {}) as AdcpTaskRequest;
    if (request.push === undefined) return;
    const payload: JsonObject = {
      idempotency_key: randomUUID(),
      operation_id: typeof request.push.operation_id === 'string' ? request.push.operation_id : task.taskId,
      task_id: task.taskId,
      task_type: task.taskType ?? 'unknown',
      status,
      timestamp: new Date().toISOString(),
    };
    if (message !== undefined) payload.message = message;
    if (request.context !== undefined) payload.context = request.context;
    if (result !== undefined) payload.result = result;
    try {
      await webhooks.send(request.push, payload, { signal: closing.signal });
    } catch {
      // Delivery failures are the emitter's to retry and report; the task state is already stored.
      if (closing.signal.aborted) undelivered += 1;
    }
  };

  const run = async (task: StoredTask, work: AsyncWork, controller: AbortController) => {
    const owner = task.owner;
    let finalBody: JsonObject;
    let finalStatus: string;
    try {
      finalBody = await work({
        signal: controller.signal,
        working: async (message, progress) => {
          const update = await store.update(owner, task.taskId, {
            status: 'working',
            ...(message === undefined ? {} : { statusMessage: message }),
          });
          if (!update.ok) return;
          const data: JsonObject = {};
          if (progress?.percentage !== undefined) data.percentage = progress.percentage;
          if (progress?.step !== undefined) data.current_step = progress.step;
          await notify(update.task, 'working', Object.keys(data).length > 0 ? data : undefined, message);
        },
      });
      if (!isJsonObject(finalBody)) throw new TypeError('async work must resolve to a JSON object');
      finalStatus = isJsonObject(finalBody.adcp_error)
        ? 'failed'
        : typeof finalBody.status === 'string'
          ? finalBody.status
          : 'completed';
      if (!isTerminalTaskStatus(finalStatus)) finalStatus = 'completed';
    } catch (error) {
      finalBody = { status: 'failed', adcp_error: adcpErrorFromThrown(error) };
      finalStatus = 'failed';
    }
    // Cut short to hand over: the task stays unfinished for the instance that takes it over.
    if (handingOver && controller.signal.aborted) return;
    const request = (task.request ?? {}) as AdcpTaskRequest;
    const body: JsonObject = { ...finalBody, status: finalStatus };
    if (request.context !== undefined) body.context = request.context;
    // The final status replaces the last progress message (`get_task_status` shows this one).
    const statusMessage = typeof finalBody.message === 'string' ? finalBody.message : `Task ${finalStatus}.`;
    const stored = await store.update(owner, task.taskId, { status: finalStatus, statusMessage, result: body });
    const entry = running.get(task.taskId);
    if (entry !== undefined) entry.final = true;
    if (stored.ok) await notify(stored.task, finalStatus, body);
  };

  return {
    async submit({ principal, taskType, args, work, message }) {
      const push =
        args.push_notification_config === undefined || args.push_notification_config === null
          ? undefined
          : webhooks.accept(args.push_notification_config);
      const request: AdcpTaskRequest = {};
      if (push !== undefined) request.push = push;
      if (isJsonObject(args.context)) request.context = args.context;
      const created = await store.create({
        owner: principalOwner(principal),
        kind: 'adcp',
        taskType,
        status: 'submitted',
        request,
        ...(message === undefined ? {} : { statusMessage: message }),
      });
      if (!created.ok) {
        throw new AdcpToolError('RATE_LIMITED', 'Too many async tasks; retry later.', {
          recovery: 'transient',
          retryAfter: Math.ceil(created.retryAfterMs / 1000),
        });
      }
      const task = created.task;
      const controller = new AbortController();
      const done = run(task, work, controller).finally(() => running.delete(task.taskId));
      running.set(task.taskId, { controller, done, final: false });
      const body: JsonObject = { status: 'submitted', task_id: task.taskId };
      if (message !== undefined) body.message = message;
      return body;
    },

    async status(principal, args) {
      if (typeof args.task_id !== 'string' || args.task_id === '') {
        throw new AdcpToolError('INVALID_REQUEST', 'task_id is required.', { field: 'task_id' });
      }
      const task = await store.get(principalOwner(principal), args.task_id);
      if (task === undefined || task.kind !== 'adcp') {
        throw new AdcpToolError('REFERENCE_NOT_FOUND', 'The referenced task was not found.', { field: 'task_id' });
      }
      const body: JsonObject = {
        task_id: task.taskId,
        task_type: task.taskType ?? 'unknown',
        status: task.status,
        created_at: new Date(task.createdAt).toISOString(),
        updated_at: new Date(task.lastUpdatedAt).toISOString(),
      };
      const protocol = task.taskType === undefined ? undefined : options.protocolOf?.(task.taskType);
      if (protocol !== undefined) body.protocol = protocol;
      if (task.statusMessage !== undefined) body.message = task.statusMessage;
      const result = isJsonObject(task.result) ? task.result : undefined;
      if (result !== undefined && isJsonObject(result.adcp_error)) body.error = result.adcp_error;
      if (args.include_result === true && result !== undefined) body.result = result;
      return body;
    },

    get busy() {
      return running.size;
    },

    async close(closeOptions = {}) {
      const all = [...running.values()];
      const cut = all.filter((entry) => !entry.final);
      handingOver = closeOptions.handOver === true && store.releaseLeases !== undefined;
      for (const entry of all) entry.controller.abort();
      closing.abort();
      await Promise.allSettled(all.map((entry) => entry.done));
      if (!handingOver) return { abortedTasks: cut.length, undeliveredWebhooks: undelivered };
      await store.releaseLeases?.().catch(() => undefined);
      return { abortedTasks: 0, undeliveredWebhooks: undelivered, handedOverTasks: cut.length };
    },
  };
}
