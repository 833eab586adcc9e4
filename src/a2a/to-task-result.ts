import type { JsonObject } from '../core/types.js';
import type { TaskResult } from '../core/task-result.js';
import type { ProgressEvent } from '../transport/transport.js';
import { normalizeTaskState } from '../core/normalize-task-state.js';
import { extractAdcpResponseFromA2A } from '../core/extract-a2a-response.js';
import { taskResultFromA2A } from '../core/task-result-from-a2a.js';
import { unwrapStreamEnvelope } from '../core/unwrap-stream-envelope.js';
import { progressOf, cleanText } from '../core/result-fields.js';
import { isPlainObject } from '../core/plain-object.js';
import { findInexactInteger } from '../core/json-number.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { A2AEvent, TaskSnapshot } from './task-snapshot.js';
import { checkAuthChallenge, filePartsOf } from './check-files.js';

/** What a result needs besides the task: the card-seeded URL allow-list. */
export interface ResultContext {
  allowedOrigins: string[];
}

/** A TaskResult from the A2A transport; `files` lists the checked FileParts when there are any. */
export type A2ATaskResult = TaskResult;

/**
 * The TaskResult of a send/get/cancel answer or of a task accumulated from a stream, built by
 * core's `taskResultFromA2A`, plus the A2A guide's security checks, which need the agent card:
 * `challenge_url` of an `auth-required` payload checked against the card origins (refused:
 * throws `unsafe_url`; accepted: replaced by the normalised URL), FileParts listed as checked.
 */
export function resultFromA2A(input: unknown, ctx: ResultContext): A2ATaskResult {
  const result = taskResultFromA2A(input);
  // a2a-profile-extension.md, "JSON number interoperability": a decoded integer outside ±(2^53−1)
  // may already have been rounded; refuse it rather than hand over a changed value.
  const inexact = result.data === undefined ? undefined : findInexactInteger(result.data);
  if (inexact !== undefined) {
    throw new AdcpWireError(
      'protocol',
      `A2A answer data ${inexact} is an integer outside ±(2^53−1), which A2A cannot carry exactly (the agent must send it as a string)`,
    );
  }
  if (result.status === 'auth-required' && result.data !== undefined && result.data['challenge_url'] !== undefined) {
    result.data = {
      ...result.data,
      challenge_url: checkAuthChallenge(result.data['challenge_url'], ctx.allowedOrigins),
    };
  }
  // Core has already refused a nested envelope; what is left is a Task, bare or in `{ task }`.
  const task = unwrapStreamEnvelope(input);
  if (isPlainObject(task)) {
    const files = filePartsOf(task, ctx.allowedOrigins);
    if (files.length > 0) result.files = files;
  }
  return result;
}

/** The progress event of one stream event, with the status the task has reached so far. */
export function progressFromEvent(event: A2AEvent, snapshot: TaskSnapshot): ProgressEvent {
  const state = normalizeTaskState(snapshot.status?.['state']);
  const out: ProgressEvent = { lifecycle: 'a2a', status: state ?? 'unknown' };
  if (snapshot.id !== undefined) out.taskId = snapshot.id;
  if (event.kind !== 'statusUpdate' && event.kind !== 'task') return out;
  let data: JsonObject | null = null;
  try {
    data = extractAdcpResponseFromA2A(event.value);
  } catch {
    data = null; // a wrapper in an interim event is reported by the final result, not here
  }
  if (data !== null) out.data = data;
  const status = isPlainObject(event.value['status']) ? event.value['status'] : undefined;
  const message = isPlainObject(status?.['message']) ? status['message'] : undefined;
  const parts = Array.isArray(message?.['parts']) ? message['parts'] : [];
  const text = cleanText(parts.find((p: unknown) => isPlainObject(p) && typeof p['text'] === 'string')?.['text']);
  if (text !== undefined) out.message = text;
  const progress = progressOf(data ?? undefined);
  if (progress?.percentage !== undefined) out.percentage = progress.percentage;
  if (progress?.step !== undefined) out.step = progress.step;
  return out;
}
