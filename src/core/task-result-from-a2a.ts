import { isFinalStatus } from './final-status.js';
import { extractAdcpErrorFromA2A } from './extract-error.js';
import { locateA2AData, type A2AExtractOptions } from './locate-a2a-data.js';
import { isPlainObject } from './plain-object.js';
import {
  assembleResult,
  baseFields,
  cleanText,
  deliveredStatus,
  errorForStatus,
  MAX_RESULT_TEXT_LENGTH,
  payloadResult,
  type TaskResultOptions,
} from './result-fields.js';
import type { TaskResult } from './task-result.js';
import type { JsonObject, TaskStatus } from './types.js';
import { AdcpWireError } from './wire-error.js';

export interface TaskResultFromA2AOptions extends TaskResultOptions, A2AExtractOptions {}

/**
 * Builds the TaskResult of an A2A Task, status-update event, or 1.0 `{ task }` / `{ statusUpdate }`
 * / `{ message }` envelope, with the data of `extractAdcpResponseFromA2A`.
 * - Two lifecycles: an A2A `completed` task says the call ran; the payload's own AdCP `status`
 *   then decides (`submitted` with a `task_id`, `rejected`, ...), `completed` when it has none,
 *   `failed` when it carries only an error. Other A2A states are the result's status as they are.
 * - `failed`/`rejected` carry their `adcp_error` (any artifact, then the status message, then the
 *   payload's `errors[0]`), or a `generic_error` stand-in.
 * - Interim results carry `progress` (`percentage`, `current_step`) when the data has it.
 *   `auth-required` data is returned as sent: check its `challenge_url` with `validateSellerUrl`
 *   against the agent card's origins before opening or fetching it.
 * - An unknown A2A state is not thrown (spec step 4, forward compatibility): it gives a `working`
 *   result with `data: undefined` and a message naming the state, so polling goes on until the
 *   caller's timeout. A bare agent `Message` (no task) gives `completed` with its text only.
 *
 * @throws AdcpWireError `wrapper_detected` for a `{ response: {...} }` DataPart in a final state;
 *   `response_too_large` for an authoritative DataPart over `maxDataPartBytes`; `protocol` for a
 *   nested envelope, a non-object, an event with no task state (`artifactUpdate`), a part count
 *   other than `expectedPartCount`, or a malformed payload `status`.
 */
export function taskResultFromA2A(input: unknown, options: TaskResultFromA2AOptions = {}): TaskResult {
  const loc = locateA2AData(input, options);
  switch (loc.outcome) {
    case 'nested_envelope':
      throw new AdcpWireError('protocol', 'A2A response has a nested stream envelope (malformed)');
    case 'wrapper':
      throw new AdcpWireError(
        'wrapper_detected',
        'A2A DataPart holds a {response: {...}} wrapper object (a server-side bug)',
      );
    case 'too_large':
      throw new AdcpWireError('response_too_large', 'A2A DataPart is over the DataPart size limit');
    case 'part_count_mismatch':
      throw new AdcpWireError('protocol', 'A2A artifact does not have the expected number of parts');
    case 'found':
    case 'no_data':
    case 'no_state':
    case 'unknown_state':
      break; // read below
  }
  const task = loc.task;
  if (task === undefined) throw new AdcpWireError('protocol', 'A2A response is not an object');
  const fields = baseFields(
    'a2a',
    input,
    stringField(task, 'id') ?? stringField(task, 'taskId') ?? options.transportTaskId,
  );
  const contextId = stringField(task, 'contextId');
  if (contextId !== undefined) fields['contextId'] = contextId;

  if (loc.outcome === 'no_state') {
    if (loc.envelope !== 'message' && task['kind'] !== 'message') {
      throw new AdcpWireError('protocol', 'A2A response carries no task state (status.state)');
    }
    const text = cleanText(firstText(task['parts']), MAX_RESULT_TEXT_LENGTH);
    if (text !== undefined) Object.assign(fields, { text, message: cleanText(text) });
    return assembleResult('completed', fields, undefined, undefined);
  }
  if (loc.outcome === 'unknown_state' || loc.state === null) {
    const shown = cleanText(loc.rawState, 64) ?? typeof loc.rawState;
    fields['message'] = `unknown A2A task state "${shown}"`;
    return assembleResult('working', fields, undefined, undefined);
  }

  const data = loc.data;
  const status: TaskStatus = loc.state === 'completed' ? deliveredStatus(data) : loc.state;
  const final = isFinalStatus(loc.state);
  const message = cleanText(data?.['message']) ?? cleanText(statusText(task, final));
  const error = errorForStatus(status, data, message, options, () => extractAdcpErrorFromA2A(task));
  return payloadResult(status, fields, data, message, error);
}

function stringField(obj: JsonObject, key: string): string | undefined {
  const value = obj[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** First TextPart of `artifacts[0]` for final states (then the status message), else of the status message. */
function statusText(task: JsonObject, final: boolean): string | undefined {
  const status = isPlainObject(task['status']) ? task['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  const fromStatus = firstText(message?.['parts']);
  if (!final) return fromStatus;
  const artifacts = task['artifacts'];
  const first: unknown = Array.isArray(artifacts) ? artifacts[0] : undefined;
  return firstText(isPlainObject(first) ? first['parts'] : undefined) ?? fromStatus;
}

/** The `text` of the first TextPart (found by field presence; a Part with two contents is skipped). */
function firstText(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const part: unknown = parts[i];
    if (!isPlainObject(part) || typeof part['text'] !== 'string') continue;
    if (part['data'] != null || part['raw'] != null || part['url'] != null || part['file'] != null) continue;
    return part['text'];
  }
  return undefined;
}
