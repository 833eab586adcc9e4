import { extractPayloadError, validateAdcpError } from '../core/extract-error.js';
import { isPlainObject } from '../core/plain-object.js';
import { toResultError } from '../core/recovery.js';
import { payloadAdcpError, progressOf } from '../core/result-fields.js';
import type { TaskResult } from '../core/task-result.js';
import { isFinalResult } from '../core/task-result.js';
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
