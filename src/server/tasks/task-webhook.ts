import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../core/types.js';
import type { StoredTask } from '../../store/task-store.js';

/** What an AdCP async task keeps in the store's `request` column. */
export interface AdcpTaskRequest {
  push?: JsonObject;
  context?: JsonObject;
}

/** One webhook owed for a task's status: where to, and the envelope to send on every attempt. */
export interface TaskWebhook {
  destination: JsonObject;
  envelope: JsonObject;
}

/**
 * The webhook a status change of `task` owes its buyer (webhooks.md: a fresh random
 * `idempotency_key` per event, the buyer's `operation_id` and `context` echoed), or undefined
 * when the buyer registered no `push_notification_config`.
 */
export function taskWebhook(
  task: Pick<StoredTask, 'taskId' | 'taskType' | 'request'>,
  status: string,
  result?: JsonObject,
  message?: string,
): TaskWebhook | undefined {
  const request = (task.request ?? {}) as AdcpTaskRequest;
  if (request.push === undefined) return undefined;
  const envelope: JsonObject = {
    idempotency_key: randomUUID(),
    operation_id: typeof request.push.operation_id === 'string' ? request.push.operation_id : task.taskId,
    task_id: task.taskId,
    task_type: task.taskType ?? 'unknown',
    status,
    timestamp: new Date().toISOString(),
  };
  if (message !== undefined) envelope.message = message;
  if (request.context !== undefined) envelope.context = request.context;
  if (result !== undefined) envelope.result = result;
  return { destination: request.push, envelope };
}
