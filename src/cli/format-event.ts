import { printable } from './args.js';
import { paintStatus, type Style } from './style.js';
import type { JsonObject } from '../core/types.js';

/** One verified webhook as the CLI shows it. Fields come from the payload (seller text). */
export interface ListenerEvent {
  receivedAt: number;
  /** Which check passed: `hmac-sha256` or `rfc9421`. */
  scheme: string;
  status: string;
  taskId?: string;
  operationId?: string;
  taskType?: string;
  message?: string;
  /** The verified payload. */
  payload: JsonObject;
}

/** One line per event: time, status, task type, ids, message; all sanitised. */
export function formatEvent(event: ListenerEvent, style: Style): string {
  const time = new Date(event.receivedAt).toISOString().slice(11, 23);
  const parts = [style.dim(time), paintStatus(style, printable(event.status, 20))];
  if (event.taskType !== undefined) parts.push(printable(event.taskType, 40));
  if (event.taskId !== undefined) parts.push(`task ${printable(event.taskId, 80)}`);
  if (event.operationId !== undefined) parts.push(`op ${printable(event.operationId, 80)}`);
  if (event.message !== undefined) parts.push(`- ${printable(event.message, 120)}`);
  parts.push(style.dim(`[${event.scheme}]`));
  return `${parts.join('  ')}\n`;
}

export function eventToJson(event: ListenerEvent): JsonObject {
  return {
    received_at: new Date(event.receivedAt).toISOString(),
    scheme: event.scheme,
    status: event.status,
    ...(event.taskId !== undefined ? { task_id: event.taskId } : {}),
    ...(event.operationId !== undefined ? { operation_id: event.operationId } : {}),
    ...(event.taskType !== undefined ? { task_type: event.taskType } : {}),
    payload: event.payload,
  };
}
