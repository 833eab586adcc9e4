import { randomUUID } from 'node:crypto';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { OperationStore } from '../store/types.js';

/** Where a pending result lives in the operations store. */
export interface OperationRef {
  operationId: string;
  agent: string;
  taskType: string;
}

/**
 * The operation id of a call: the buyer's `push_notification_config.operation_id` when the call
 * registered a webhook (so webhooks, which correlate by that id, move the same record), else the
 * AdCP `task_id`, else a new UUID.
 */
export function operationIdFor(args: JsonObject, result: TaskResult): string {
  const push = args['push_notification_config'];
  if (push !== null && typeof push === 'object' && !Array.isArray(push)) {
    const id = (push as JsonObject)['operation_id'];
    if (typeof id === 'string' && id !== '') return id;
  }
  return result.taskId ?? randomUUID();
}

/** Moves the operation to `result`'s status (creating it when missing); the store refuses going backwards. */
export async function advanceOperation(
  store: OperationStore,
  ref: OperationRef,
  result: TaskResult,
  now: number,
): Promise<void> {
  const update: Parameters<OperationStore['advance']>[1] = {
    status: result.status,
    statusAt: now,
    now,
    result: result.data ?? null,
    createIfMissing: { agent: ref.agent, taskType: ref.taskType },
  };
  if (result.taskId !== undefined) update.taskId = result.taskId;
  await store.advance(ref.operationId, update);
}

/** Records a `submitted`/`working` result as a new operation. */
export async function recordOperation(
  store: OperationStore,
  ref: OperationRef,
  result: TaskResult,
  now: number,
): Promise<void> {
  const record: Parameters<OperationStore['create']>[0] = {
    operationId: ref.operationId,
    agent: ref.agent,
    taskType: ref.taskType,
    status: result.status,
    statusAt: now,
    now,
    result: result.data ?? null,
  };
  if (result.taskId !== undefined) record.taskId = result.taskId;
  await store.create(record);
}
