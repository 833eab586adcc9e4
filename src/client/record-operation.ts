import { randomUUID } from 'node:crypto';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { OperationRecord, OperationStore } from '../store/types.js';
import type { ResultOperation } from '../core/task-result.js';

/** Where a pending result lives in the operations store. */
export type OperationRef = ResultOperation;

/** Statuses of work still in flight (not final): what `resumeOpenOperations` lists. */
export const OPEN_STATUSES = ['submitted', 'working', 'input-required', 'auth-required'] as const;

/**
 * The result an operation record stands for, to resume waiting on it after a restart: its status,
 * AdCP task id, last result body, and the operation itself (so the task-type check holds).
 */
export function resultFromOperation(record: OperationRecord, protocol: 'mcp' | 'a2a'): TaskResult {
  const data =
    record.result !== null && typeof record.result === 'object' && !Array.isArray(record.result)
      ? (record.result as JsonObject)
      : undefined;
  const operation = { operationId: record.operationId, agent: record.agent, taskType: record.taskType };
  const base = {
    data,
    protocol,
    raw: record,
    operation,
    ...(record.taskId !== undefined ? { taskId: record.taskId } : {}),
  };
  switch (record.status) {
    case 'completed':
      return { ...base, status: 'completed' };
    case 'submitted':
    case 'working':
    case 'input-required':
    case 'auth-required':
      return { ...base, status: record.status };
    case 'canceled':
      return { ...base, status: 'canceled' };
    default: {
      const failed = record.status === 'rejected' ? 'rejected' : 'failed';
      const adcpError = {
        code: 'OPERATION_' + failed.toUpperCase(),
        message: `operation ${record.operationId} is ${record.status}`,
      };
      return {
        ...base,
        status: failed,
        error: {
          adcpError,
          code: adcpError.code,
          recovery: 'terminal',
          action: 'surface_to_caller',
          retryDelaySeconds: null,
        },
      };
    }
  }
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
