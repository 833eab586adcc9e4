import { randomUUID } from 'node:crypto';
import type { JsonObject, TaskStatus } from '../core/types.js';

/** What the seller reports about one status change of a task. */
export interface WebhookEventInput {
  /** Echoed verbatim from the buyer's `push_notification_config.operation_id`. */
  operationId: string;
  taskId: string;
  taskType: string;
  status: TaskStatus;
  result?: JsonObject;
  message?: string;
  /** The buyer's `context` object, echoed verbatim on every delivery. */
  context?: JsonObject;
  /** Stable across retries of this event; generated (UUID v4) when absent. */
  idempotencyKey?: string;
  /** When the status changed (default now); kept identical across retries. */
  timestamp?: Date | string;
}

/**
 * Builds the MCP webhook envelope (webhooks.md, "Webhook payload formats": `idempotency_key`,
 * `operation_id`, `task_id`, `task_type`, `status`, `timestamp`, optional `message`, `context`,
 * `result`). Build it once per event and reuse it for every retry.
 */
export function buildWebhookEnvelope(input: WebhookEventInput): JsonObject {
  for (const field of ['operationId', 'taskId', 'taskType', 'status'] as const) {
    if (typeof input[field] !== 'string' || input[field] === '')
      throw new TypeError(`buildWebhookEnvelope: ${field} must be a non-empty string`);
  }
  const key = input.idempotencyKey ?? `whk_${randomUUID()}`;
  if (!/^[A-Za-z0-9_.:-]{16,255}$/.test(key))
    throw new TypeError('buildWebhookEnvelope: idempotencyKey must match ^[A-Za-z0-9_.:-]{16,255}$');
  const timestamp =
    input.timestamp instanceof Date ? input.timestamp.toISOString() : (input.timestamp ?? new Date().toISOString());
  const envelope: JsonObject = {
    idempotency_key: key,
    operation_id: input.operationId,
    task_id: input.taskId,
    task_type: input.taskType,
    status: input.status,
    timestamp,
  };
  if (input.message !== undefined) envelope['message'] = input.message;
  if (input.context !== undefined) envelope['context'] = input.context;
  if (input.result !== undefined) envelope['result'] = input.result;
  return envelope;
}
