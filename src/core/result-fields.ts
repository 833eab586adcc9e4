import { extractPayloadError, validateAdcpError } from './extract-error.js';
import { normalizeTaskState, isTaskStatus } from './normalize-task-state.js';
import { isPlainObject } from './plain-object.js';
import { toResultError, type RecoveryActionOptions } from './recovery.js';
import { sanitizeSellerText } from './sanitize.js';
import type { ResultError, TaskResult } from './task-result.js';
import type { AdcpError, JsonObject, TaskStatus } from './types.js';
import { AdcpWireError } from './wire-error.js';

/** Options shared by the TaskResult builders. */
export interface TaskResultOptions extends RecoveryActionOptions {
  /** The transport's own task id when the caller knows it (MCP Tasks `taskId`). */
  transportTaskId?: string;
}

/** Longest `text` kept for a plain-text answer, in code points, after sanitising. */
export const MAX_RESULT_TEXT_LENGTH = 4096;
const MAX_TASK_ID_LENGTH = 1024;

/**
 * The AdCP status a payload declares: `undefined` when it has none. A string that is one of the
 * eight task statuses is that status. A task status in the wrong spelling (`INPUT_REQUIRED`,
 * `Completed`, `TASK_STATE_WORKING`) is a protocol error: guessing could hide an agent waiting for
 * input. Any other string is a body field of the task (e.g. `check_governance` decisions
 * `approved`/`conditions`/`denied` share the flat root) and leaves the result `completed`, with
 * `data.status` as sent. A non-string `status` is a protocol error.
 */
export function payloadStatus(data: JsonObject | undefined): TaskStatus | undefined {
  const status = data?.['status'];
  if (status === undefined || status === null) return undefined;
  if (typeof status !== 'string') {
    throw new AdcpWireError('protocol', `AdCP payload has a non-string status (${typeof status})`);
  }
  if (isTaskStatus(status)) return status;
  if (normalizeTaskState(status) !== null) {
    const shown = sanitizeSellerText(status, { maxLength: 40 }) ?? '';
    throw new AdcpWireError('protocol', `AdCP payload status "${shown}" is not spelled as a task status`);
  }
  return undefined;
}

/**
 * The status of a payload that a finished call delivered (an A2A `completed` task, an MCP answer
 * without `isError`): the payload's own AdCP `status` (see `payloadStatus`), else `failed` when it
 * carries an `adcp_error`, else `completed`.
 */
export function deliveredStatus(data: JsonObject | undefined): TaskStatus {
  const adcpError = data?.['adcp_error'];
  const stated = payloadStatus(data);
  if (stated !== undefined) return stated;
  return (adcpError !== undefined && adcpError !== null) || isErrorArm(data) ? 'failed' : 'completed';
}

/** What an error arm of a task response holds besides `errors` (and the envelope's own fields). */
const ERROR_ARM_KEYS = new Set([
  'errors',
  'success',
  'conflicting_standards_id',
  'context',
  'ext',
  'message',
  'adcp_version',
  'adcp_major_version',
  'replayed',
]);

/**
 * A task response's error arm (`errors` required, nothing of a success arm): a non-empty `errors`
 * array of error objects, `success` (when present) false, and no other field. An agent that
 * reports a fatal failure only in the payload (transport-errors.md, detection step 6: "a
 * conformance gap on the agent side") still gets a `failed` result, never a `completed` one
 * whose data reads like a success (decision 0166).
 */
export function isErrorArm(data: JsonObject | undefined): boolean {
  if (data === undefined) return false;
  const errors = data['errors'];
  if (!Array.isArray(errors) || errors.length === 0) return false;
  if (!errors.every((e) => isPlainObject(e) && typeof e['code'] === 'string')) return false;
  if (data['success'] !== undefined && data['success'] !== false) return false;
  return Object.keys(data).every((key) => ERROR_ARM_KEYS.has(key));
}

/** The validated `adcp_error` of a payload, or `null`. */
export function payloadAdcpError(data: JsonObject | undefined): AdcpError | null {
  const raw = data?.['adcp_error'];
  return raw === undefined || raw === null ? null : validateAdcpError(raw);
}

/**
 * The `error` of a failed/rejected result: the transport's `adcp_error`, else the payload's, else
 * its `errors[0]`; with none of them, a stand-in (`TASK_FAILED` / `REJECTED`) whose action is
 * `generic_error`, so the refusal stays visible without inventing a cause.
 */
export function resultErrorFor(
  status: 'failed' | 'rejected',
  transportError: AdcpError | null,
  data: JsonObject | undefined,
  message: string | undefined,
  options: RecoveryActionOptions,
): ResultError {
  const found = transportError ?? payloadAdcpError(data) ?? extractPayloadError(data);
  if (found !== null) return toResultError(found, options);
  const fallback: AdcpError = { code: status === 'rejected' ? 'REJECTED' : 'TASK_FAILED' };
  if (message !== undefined) fallback.message = message;
  return { ...toResultError(fallback, options), action: 'generic_error' };
}

/**
 * The `error` a result of `status` carries: `failed`/`rejected` always one (see `resultErrorFor`);
 * `canceled` the transport's `adcp_error`, else the payload's, when there is one; other statuses
 * none. `transportError` is read only for those three statuses.
 */
export function errorForStatus(
  status: TaskStatus,
  data: JsonObject | undefined,
  message: string | undefined,
  options: RecoveryActionOptions,
  transportError: () => AdcpError | null,
): ResultError | undefined {
  if (status === 'failed' || status === 'rejected')
    return resultErrorFor(status, transportError(), data, message, options);
  if (status !== 'canceled') return undefined;
  const found = transportError() ?? payloadAdcpError(data);
  return found === null ? undefined : toResultError(found, options);
}

/** Progress an interim payload reports: `percentage` (0..100) and `current_step`/`step` (sanitised). */
export function progressOf(data: JsonObject | undefined): { percentage?: number; step?: string } | undefined {
  if (data === undefined) return undefined;
  const out: { percentage?: number; step?: string } = {};
  const pct = data['percentage'];
  if (typeof pct === 'number' && Number.isFinite(pct) && pct >= 0 && pct <= 100) out.percentage = pct;
  const step = sanitizeSellerText(data['current_step'] ?? data['step'], { maxLength: 128 });
  if (step !== undefined && step !== '') out.step = step;
  return out.percentage === undefined && out.step === undefined ? undefined : out;
}

/** Seller text made safe for logs and terminals (sanitised, trimmed), or `undefined` when empty or not a string. */
export function cleanText(value: unknown, maxLength?: number): string | undefined {
  const clean = sanitizeSellerText(value, maxLength === undefined ? {} : { maxLength })?.trim();
  return clean === undefined || clean === '' ? undefined : clean;
}

/** Fields every result shares, taken from the payload: `taskId` (payload `task_id`) and `context`. */
export function payloadFields(data: JsonObject | undefined): { taskId?: string; context?: JsonObject } {
  const out: { taskId?: string; context?: JsonObject } = {};
  const taskId = data?.['task_id'];
  if (typeof taskId === 'string' && taskId !== '' && taskId.length <= MAX_TASK_ID_LENGTH) out.taskId = taskId;
  const context = data?.['context'];
  if (isPlainObject(context)) out.context = context;
  return out;
}

/** The fields every result starts from: the wire, the raw answer, and the transport's task id when known. */
export function baseFields(protocol: 'mcp' | 'a2a', raw: unknown, transportTaskId: string | undefined): JsonObject {
  const fields: JsonObject = { protocol, raw };
  if (transportTaskId !== undefined) fields['transportTaskId'] = transportTaskId;
  return fields;
}

/** The TaskResult of a payload: `fields` plus the payload's `taskId`/`context` and the `message`, assembled. */
export function payloadResult(
  status: TaskStatus,
  fields: JsonObject,
  data: JsonObject | undefined,
  message: string | undefined,
  error: ResultError | undefined,
): TaskResult {
  Object.assign(fields, payloadFields(data), message === undefined ? {} : { message });
  return assembleResult(status, fields, data, error);
}

/** Assembles a TaskResult of `status` from its parts, leaving out absent optional fields. */
export function assembleResult(
  status: TaskStatus,
  fields: JsonObject,
  data: JsonObject | undefined,
  error: ResultError | undefined,
): TaskResult {
  const result: JsonObject = { status, ...fields, data };
  if (error !== undefined) result['error'] = error;
  if (status === 'submitted' || status === 'working' || status === 'input-required' || status === 'auth-required') {
    const progress = progressOf(data);
    if (progress !== undefined) result['progress'] = progress;
  }
  return result as unknown as TaskResult;
}
