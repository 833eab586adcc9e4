import { profileViolation, type A2AProfileViolation } from './a2a-profile.js';
import { dataPartData } from './data-part.js';
import { normalizeTaskState } from './normalize-task-state.js';
import { isPlainObject } from './plain-object.js';
import type { JsonObject } from './types.js';

/** A conformant non-streaming SendMessage answer: its Task and, for AdCP Submitted work, the handle. */
export interface ProfileResponseCheck {
  ok: true;
  task: JsonObject;
  /** The AdCP `task_id` of a Submitted answer (from the DataPart, its only place). */
  adcpTaskId?: string;
}

/** How deep metadata is searched for a copied AdCP handle. */
const MAX_METADATA_DEPTH = 8;

/**
 * Checks a non-streaming `SendMessage` result under the profile (a2a-profile-extension.md,
 * "Response mapping", "Submitted AdCP work"): it selects the `task` branch (a bare Task or a
 * `{ message }` answer is `invalid_send_message_response`), and its Task passes `checkProfileTask`.
 */
export function checkProfileSendResponse(result: unknown): ProfileResponseCheck | A2AProfileViolation {
  if (!isPlainObject(result) || !isPlainObject(result['task']) || Object.keys(result).length !== 1) {
    const what = isPlainObject(result) && 'message' in result ? 'the message branch' : 'a bare Task or another shape';
    return profileViolation(
      'invalid_send_message_response',
      `a non-streaming SendMessage answer must select its task branch ({ task }); got ${what}`,
    );
  }
  return checkProfileTask(result['task']);
}

/**
 * Checks one A2A Task of a profiled interface, however it arrived (the `task` of a `SendMessage`
 * answer, the task a stream built, a `GetTask` answer): an AdCP Submitted DataPart sits in a
 * `TASK_STATE_COMPLETED` Task (`submitted_handler_return_not_a2a_completed`: native `submitted` is a transport
 * state) with its `task_id` (`missing_adcp_task_id`), and that handle appears in no A2A metadata
 * member (`adcp_task_id_metadata_duplication`).
 */
export function checkProfileTask(task: JsonObject): ProfileResponseCheck | A2AProfileViolation {
  const data = authoritativeData(task);
  const handle = typeof data?.['task_id'] === 'string' ? data['task_id'] : undefined;
  const copied = findCopiedHandle(task, handle);
  if (copied !== undefined) {
    return profileViolation(
      'adcp_task_id_metadata_duplication',
      `the AdCP task_id appears in A2A metadata (${copied}); it belongs only in the DataPart`,
    );
  }
  if (data?.['status'] !== 'submitted') return { ok: true, task };
  const status = isPlainObject(task['status']) ? task['status'] : {};
  if (normalizeTaskState(status['state']) !== 'completed') {
    return profileViolation(
      'submitted_handler_return_not_a2a_completed',
      'an AdCP Submitted answer is returned in a TASK_STATE_COMPLETED Task; a native A2A submitted state is not an AdCP Submitted result',
    );
  }
  if (handle === undefined || handle === '') {
    return profileViolation('missing_adcp_task_id', 'an AdCP Submitted answer must carry its task_id in the DataPart');
  }
  return { ok: true, task, adcpTaskId: handle };
}

/** The last DataPart of `artifacts[0]`, else the first of `status.message.parts` (a2a-guide.md). */
function authoritativeData(task: JsonObject): JsonObject | undefined {
  const artifacts = Array.isArray(task['artifacts']) ? task['artifacts'] : [];
  const first: unknown = artifacts[0];
  const parts = isPlainObject(first) && Array.isArray(first['parts']) ? first['parts'] : [];
  for (let i = parts.length - 1; i >= 0; i--) {
    const data = dataPartData(parts[i]);
    if (data !== undefined) return data;
  }
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  for (const part of Array.isArray(message?.['parts']) ? message['parts'] : []) {
    const data = dataPartData(part);
    if (data !== undefined) return data;
  }
  return undefined;
}

/**
 * Where A2A metadata copies the AdCP handle: an `adcp_task_id` member anywhere in the Task's,
 * its artifacts', its status message's or any Part's `metadata`, or (when the DataPart has a
 * `task_id`) any metadata value equal to it. Returns the path, or undefined.
 */
function findCopiedHandle(task: JsonObject, handle: string | undefined): string | undefined {
  const places: [string, unknown][] = [['task.metadata', task['metadata']]];
  const artifacts = Array.isArray(task['artifacts']) ? task['artifacts'] : [];
  artifacts.forEach((artifact: unknown, i) => {
    if (!isPlainObject(artifact)) return;
    places.push([`artifacts[${i}].metadata`, artifact['metadata']]);
    const parts = Array.isArray(artifact['parts']) ? artifact['parts'] : [];
    parts.forEach((part: unknown, j) => {
      if (isPlainObject(part)) places.push([`artifacts[${i}].parts[${j}].metadata`, part['metadata']]);
    });
  });
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  if (message !== undefined) places.push(['status.message.metadata', message['metadata']]);
  for (const [path, metadata] of places) {
    const found = searchMetadata(metadata, handle, path, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

function searchMetadata(value: unknown, handle: string | undefined, path: string, depth: number): string | undefined {
  if (depth > MAX_METADATA_DEPTH) return undefined;
  if (handle !== undefined && handle !== '' && value === handle) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = searchMetadata(value[i], handle, `${path}[${i}]`, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'adcp_task_id') return `${path}.adcp_task_id`;
    const found = searchMetadata(inner, handle, `${path}.${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
