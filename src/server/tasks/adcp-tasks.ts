import type { JsonObject } from '../../core/types.js';
import type { CreateTaskInput, StoredTask, TaskStore } from '../../store/task-store.js';
import { isTerminalTaskStatus } from '../../store/task-store.js';
import type { OwedWebhook } from '../../store/webhook-outbox.js';
import { AdcpToolError, adcpErrorFromThrown } from '../tools/tool-error.js';
import type { ServerWebhooks } from './server-webhooks.js';
import type { AsyncWork } from '../types.js';
import { isJsonObject } from '../../core/json-object.js';
import { startOutboxSender } from './outbox-sender.js';
import { taskWebhook, type AdcpTaskRequest } from './task-webhook.js';

export interface AdcpTaskRunner {
  /** Stores a `submitted` task, starts `work`, and returns the `submitted` body. */
  submit(input: {
    principal: string;
    taskType: string;
    args: JsonObject;
    work: AsyncWork;
    message?: string;
    /** The id to store the task under (`SubmitOptions.taskId`); a fresh one when it is taken. */
    taskId?: string;
  }): Promise<JsonObject>;
  /** The `get_task_status` / legacy `tasks/get` answer for a task of this principal. */
  status(principal: string, args: JsonObject): Promise<JsonObject>;
  /** How many tasks are still running or still delivering their webhooks (a drain waits for 0). */
  readonly busy: number;
  /** The server's webhook channel, which tool handlers reach through `ToolContext.webhooks`. */
  readonly webhooks: ServerWebhooks;
  /** Sends due webhooks of the store's outbox now (after the upkeep failed abandoned tasks). */
  pollOutbox(): void;
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
  // A store that outlives the process has an outbox: each webhook is written with its status and
  // sent from there, by this process or, if it dies, another. In memory: sent directly.
  const sender = store.outbox === undefined ? undefined : startOutboxSender({ outbox: store.outbox, webhooks });

  /** The webhook to write with a status change (outbox only), leased to this process. */
  const owed = (
    task: StoredTask,
    status: string,
    result: JsonObject | undefined,
    message?: string,
  ): OwedWebhook | undefined => {
    if (sender === undefined) return undefined;
    const hook = taskWebhook(task, status, result, message);
    if (hook === undefined) return undefined;
    const { destination, envelope } = hook;
    return {
      id: String(envelope.idempotency_key),
      taskId: task.taskId,
      destination,
      envelope,
      leaseMs: sender.leaseMs,
    };
  };

  /** After the status (and its webhook, if owed) is stored: send it. */
  const notify = async (
    task: StoredTask,
    webhook: OwedWebhook | undefined,
    status: string,
    result: JsonObject | undefined,
    message?: string,
  ) => {
    if (sender !== undefined) {
      if (webhook !== undefined) sender.send({ ...webhook, attempts: 1 });
      return;
    }
    const hook = taskWebhook(task, status, result, message);
    if (hook === undefined) return;
    try {
      await webhooks.send(hook.destination, hook.envelope, { signal: closing.signal });
    } catch {
      // Delivery failures are the emitter's to retry and report; the task state is already stored.
      if (closing.signal.aborted) undelivered += 1;
    }
  };

  const run = async (task: StoredTask, work: AsyncWork, controller: AbortController) => {
    const owner = task.owner;
    let finalBody: JsonObject;
    let finalStatus: string;
    // Progress webhooks go out in order behind the work, never in its way: a receiver slow to
    // answer (or a retried delivery) must not hold the task's own progress back.
    let delivered: Promise<void> = Promise.resolve();
    try {
      finalBody = await work({
        signal: controller.signal,
        working: async (message, progress) => {
          const data: JsonObject = {};
          if (progress?.percentage !== undefined) data.percentage = progress.percentage;
          if (progress?.step !== undefined) data.current_step = progress.step;
          const result = Object.keys(data).length > 0 ? data : undefined;
          const webhook = owed(task, 'working', result, message);
          const update = await store.update(owner, task.taskId, {
            status: 'working',
            ...(message === undefined ? {} : { statusMessage: message }),
            ...(webhook === undefined ? {} : { webhook }),
          });
          if (!update.ok) return;
          delivered = delivered.then(() => notify(update.task, webhook, 'working', result, message));
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
    const webhook = owed(task, finalStatus, body);
    const stored = await store.update(owner, task.taskId, {
      status: finalStatus,
      statusMessage,
      result: body,
      ...(webhook === undefined ? {} : { webhook }),
    });
    const entry = running.get(task.taskId);
    if (entry !== undefined) entry.final = true;
    await delivered;
    if (stored.ok) await notify(stored.task, webhook, finalStatus, body);
  };

  return {
    webhooks,
    async submit({ principal, taskType, args, work, message, taskId }) {
      const push =
        args.push_notification_config === undefined || args.push_notification_config === null
          ? undefined
          : webhooks.accept(args.push_notification_config);
      const request: AdcpTaskRequest = {};
      if (push !== undefined) request.push = push;
      if (isJsonObject(args.context)) request.context = args.context;
      const input: CreateTaskInput = {
        owner: principalOwner(principal),
        kind: 'adcp',
        taskType,
        status: 'submitted',
        request,
        ...(message === undefined ? {} : { statusMessage: message }),
      };
      // A chosen id another task already holds (ids are unique across owners) gets a fresh one:
      // the stores refuse the duplicate, and a failure of any other kind fails the retry too.
      const chosen = typeof taskId === 'string' && taskId !== '' && taskId.length <= 128 ? taskId : undefined;
      const created =
        chosen === undefined
          ? await store.create(input)
          : await store.create({ ...input, taskId: chosen }).catch(() => store.create(input));
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
      return running.size + (sender?.busy ?? 0);
    },

    pollOutbox() {
      sender?.poll();
    },

    async close(closeOptions = {}) {
      const all = [...running.values()];
      const cut = all.filter((entry) => !entry.final);
      handingOver = closeOptions.handOver === true && store.releaseLeases !== undefined;
      for (const entry of all) entry.controller.abort();
      closing.abort();
      await Promise.allSettled(all.map((entry) => entry.done));
      // Deliveries cut short stay owed in the outbox, their leases released for whoever sends next.
      undelivered += (await sender?.close()) ?? 0;
      if (!handingOver) return { abortedTasks: cut.length, undeliveredWebhooks: undelivered };
      await store.releaseLeases?.().catch(() => undefined);
      return { abortedTasks: 0, undeliveredWebhooks: undelivered, handedOverTasks: cut.length };
    },
  };
}
