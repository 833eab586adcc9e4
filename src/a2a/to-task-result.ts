import { AdcpWireError } from '../core/wire-error.js';
import type { AdcpError, JsonObject, TaskStatus } from '../core/types.js';
import type { ResultError, TaskResult } from '../core/task-result.js';
import type { ProgressEvent } from '../client/transport.js';
import { normalizeTaskState, isTaskStatus } from '../core/normalize-task-state.js';
import { extractAdcpResponseFromA2A } from '../core/extract-a2a-response.js';
import { extractAdcpErrorFromA2A, extractAdcpErrorFromJsonRpc, extractPayloadError, validateAdcpError } from '../core/extract-error.js';
import { toResultError } from '../core/recovery.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import { isAdcpErrorOnly, isPlainObject } from '../core/plain-object.js';
import type { A2AEvent, TaskSnapshot } from './task-snapshot.js';
import { filePartsOf, type CheckedFile } from './check-files.js';
import { checkAuthChallenge } from './check-files.js';

/** What a result needs besides the task: the raw envelope and the card-seeded URL allow-list. */
export interface ResultContext {
  raw: unknown;
  allowedOrigins: string[];
}

/** A TaskResult from the A2A transport; `files` lists checked FileParts when the task had any. */
export type A2ATaskResult = TaskResult & { files?: CheckedFile[] };

const FINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'canceled', 'rejected']);

/**
 * Builds the TaskResult of an A2A Task (bare, or accumulated from a stream). The A2A state says
 * where the payload is (a2a-response-extraction.md); the AdCP `status` inside the payload, when
 * present, says where the AdCP operation is (a completed A2A Task may carry AdCP `submitted`).
 * A wrapper bug throws `wrapper_detected`; a refused `challenge_url` throws `unsafe_url`.
 */
export function resultFromTask(task: JsonObject, ctx: ResultContext): A2ATaskResult {
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const state = normalizeTaskState(status?.['state']);
  const data = extract(task);
  let adcpStatus: TaskStatus = state ?? 'working';
  const claimed = data?.['status'];
  if (state !== null && FINAL.has(state) && state === 'completed' && isTaskStatus(claimed)) adcpStatus = claimed;
  if (adcpStatus === 'completed' && data !== undefined && isAdcpErrorOnly(data)) adcpStatus = 'failed';

  const base: JsonObject = { protocol: 'a2a', raw: ctx.raw };
  if (typeof task['id'] === 'string') base['transportTaskId'] = task['id'];
  if (typeof task['contextId'] === 'string') base['contextId'] = task['contextId'];
  if (typeof data?.['task_id'] === 'string') base['taskId'] = data['task_id'];
  if (isPlainObject(data?.['context'])) base['context'] = data['context'];
  const message = textOf(task, state !== null && FINAL.has(state)) ?? (typeof data?.['message'] === 'string' ? data['message'] : undefined);
  const clean = sanitizeSellerText(message);
  if (clean !== undefined && clean !== '') base['message'] = clean;
  if (state === null) {
    const shown = sanitizeSellerText(status?.['state'], { maxLength: 64 }) ?? 'absent';
    base['message'] = `unknown A2A task state "${shown}"${clean === undefined ? '' : `: ${clean}`}`;
  }
  const files = filePartsOf(task, ctx.allowedOrigins);
  if (files.length > 0) base['files'] = files;

  if (adcpStatus === 'auth-required' && data !== undefined) checkAuthChallenge(data, ctx.allowedOrigins);
  const result = { ...base, status: adcpStatus, data } as JsonObject;
  if (adcpStatus === 'failed' || adcpStatus === 'rejected') {
    result['error'] = errorOf(task, data, adcpStatus, clean);
  } else if (adcpStatus === 'canceled') {
    const found = extractAdcpErrorFromA2A(task);
    if (found !== null) result['error'] = toResultError(found);
  } else if (adcpStatus !== 'completed') {
    const progress = progressOf(data);
    if (progress !== undefined) result['progress'] = progress;
  }
  return result as unknown as A2ATaskResult;
}

/** A `failed` TaskResult for a JSON-RPC error that carries an `adcp_error`, else `undefined`. */
export function resultFromRpcError(error: unknown, ctx: ResultContext): TaskResult | undefined {
  const adcpError = extractAdcpErrorFromJsonRpc(error);
  if (adcpError === null) return undefined;
  const result: TaskResult = {
    status: 'failed',
    protocol: 'a2a',
    raw: ctx.raw,
    data: { adcp_error: adcpError },
    error: toResultError(adcpError),
  };
  const clean = sanitizeSellerText(adcpError.message);
  if (clean !== undefined && clean !== '') result.message = clean;
  return result;
}

/** The progress event of one stream event, with the status the task has reached so far. */
export function progressFromEvent(event: A2AEvent, snapshot: TaskSnapshot): ProgressEvent {
  const state = normalizeTaskState(snapshot.status?.['state']);
  const out: ProgressEvent = { status: state ?? 'unknown' };
  if (snapshot.id !== undefined) out.taskId = snapshot.id;
  if (event.kind !== 'statusUpdate' && event.kind !== 'task') return out;
  let data: JsonObject | undefined;
  try {
    data = extract(event.value);
  } catch {
    data = undefined; // a wrapper in an interim event is reported by the final result, not here
  }
  if (data !== undefined) out.data = data;
  const message = sanitizeSellerText(textOf(event.value, false));
  if (message !== undefined && message !== '') out.message = message;
  const progress = progressOf(data);
  if (progress?.percentage !== undefined) out.percentage = progress.percentage;
  if (progress?.step !== undefined) out.step = progress.step;
  return out;
}

function extract(task: JsonObject): JsonObject | undefined {
  let data: unknown;
  try {
    data = extractAdcpResponseFromA2A(task);
  } catch (error) {
    throw new AdcpWireError('wrapper_detected', 'A2A DataPart holds a {response: {...}} wrapper: a server-side bug', { cause: error });
  }
  return isPlainObject(data) ? data : undefined;
}

function errorOf(task: JsonObject, data: JsonObject | undefined, status: string, text: string | undefined): ResultError {
  const found: AdcpError | null =
    extractAdcpErrorFromA2A(task) ?? validateAdcpError(data?.['adcp_error']) ?? extractPayloadError(data);
  if (found !== null) return toResultError(found);
  // The agent said no without a structured error: keep that visible rather than invent a cause.
  const fallback: AdcpError = { code: status === 'rejected' ? 'REJECTED' : 'TASK_FAILED' };
  if (text !== undefined) fallback.message = text;
  return { ...toResultError(fallback), action: 'generic_error' };
}

/** First TextPart of `artifacts[0]` for final states (then the status message), else of the status message. */
function textOf(task: JsonObject, final: boolean): string | undefined {
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  const fromStatus = firstText(message?.['parts']);
  if (!final) return fromStatus;
  const artifacts = Array.isArray(task['artifacts']) ? task['artifacts'] : [];
  const first: unknown = artifacts[0];
  return firstText(isPlainObject(first) ? first['parts'] : undefined) ?? fromStatus;
}

function firstText(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  for (const part of parts) {
    if (isPlainObject(part) && typeof part['text'] === 'string' && (part['kind'] === undefined || part['kind'] === 'text')) return part['text'];
  }
  return undefined;
}

function progressOf(data: JsonObject | undefined): { percentage?: number; step?: string } | undefined {
  if (data === undefined) return undefined;
  const out: { percentage?: number; step?: string } = {};
  const pct = data['percentage'];
  if (typeof pct === 'number' && Number.isFinite(pct) && pct >= 0 && pct <= 100) out.percentage = pct;
  const step = sanitizeSellerText(data['current_step'] ?? data['step'], { maxLength: 128 });
  if (step !== undefined && step !== '') out.step = step;
  return out.percentage === undefined && out.step === undefined ? undefined : out;
}
