import { extractPayloadError, validateAdcpError } from '../core/extract-error.js';
import { isPlainObject } from '../core/plain-object.js';
import { toResultError } from '../core/recovery.js';
import { payloadAdcpError, progressOf } from '../core/result-fields.js';
import type { TaskResult } from '../core/task-result.js';
import { isFinalResult } from '../core/task-result.js';
import { AdcpWireError } from '../core/wire-error.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import type { JsonObject } from '../core/types.js';

/**
 * Turns the answer of `get_task_status` (or legacy `tasks/get`) into the result of the task it
 * describes (task-lifecycle.md, "Polling and Timeouts"): for a final status, `data` becomes the
 * envelope's `result` (the canonical terminal payload) when there is one; a failed task with no
 * transport error takes its error from that payload, else from the envelope's `error` summary;
 * an interim status takes its progress from the envelope's `progress` object when the flat
 * fields carried none. `raw` stays the whole polling answer.
 */
export function unwrapPolledResult(result: TaskResult): TaskResult {
  const envelope = result.data;
  if (envelope === undefined) return result;
  if (!isFinalResult(result)) {
    if ('progress' in result && result.progress !== undefined) return result;
    const nested = envelope['progress'];
    const progress = isPlainObject(nested) ? progressOf(nested) : undefined;
    return progress === undefined ? result : ({ ...result, progress } as TaskResult);
  }
  const inner = envelope['result'];
  const payload: JsonObject | undefined = isPlainObject(inner) ? inner : undefined;
  const out = { ...result, data: payload ?? envelope } as TaskResult;
  if ((out.status === 'failed' || out.status === 'rejected') && out.error.action === 'generic_error') {
    const found = payloadAdcpError(payload) ?? extractPayloadError(payload) ?? validateAdcpError(envelope['error']);
    if (found !== null) out.error = toResultError(found);
  }
  return out;
}

/** The not-found codes a task-status tool answers about an id it does not know (REFERENCE_NOT_FOUND is the seller's generic one). */
const UNKNOWN_TASK_CODES = new Set(['REFERENCE_NOT_FOUND', 'NOT_FOUND', 'TASK_NOT_FOUND']);

/**
 * Throws `not_found` when a task-status poll answered that the agent knows no task `taskId`: a
 * failed answer whose error is a not-found code and that names no task (a task that itself failed
 * is described: its envelope carries `task_id`). The client's rule for an unknown task id, on
 * `getTaskStatus` and `waitFor` alike (docs/decisions/0161-unknown-task-id.md).
 */
export function throwIfUnknownTask(polled: TaskResult, taskId: string, tool: string, url?: string): void {
  if (polled.status !== 'failed' && polled.status !== 'rejected') return;
  if (polled.data?.['task_id'] !== undefined || polled.taskId !== undefined) return;
  if (!UNKNOWN_TASK_CODES.has(polled.error.code)) return;
  const message = sanitizeSellerText(polled.error.adcpError.message, { maxLength: 200 });
  const said = message === undefined || message === '' ? polled.error.code : `${polled.error.code}: ${message}`;
  const where = url === undefined ? '' : ` at ${url}`;
  throw new AdcpWireError('not_found', `no such task ${JSON.stringify(taskId)}${where} (${tool} answered ${said})`, {
    tool,
    ...(url === undefined ? {} : { url }),
  });
}
