import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import type { Artifact, Message, Part, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { JsonObject } from '../../core/types.js';
import type { AdcpAnswer } from '../calls/invoke-tool.js';
import { terseText } from '../calls/invoke-tool.js';
import type { WorkingProgress } from '../types.js';

// The events one AdCP invocation publishes on the SDK's bus, in this order (a2a-response-format.md,
// "Interim A2A Responses" and "Final Responses"): the Task `working`, a `working` status update
// per progress report, one artifact update carrying the whole artifact, the terminal status update.

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const dataPart = (data: unknown): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function statusUpdate(taskId: string, contextId: string, state: TaskState, parts: Part[]): TaskStatusUpdateEvent {
  const message = agentMessage(taskId, contextId, parts);
  return { taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined };
}

/** The first event: the Task, `working`, with a one-line status message. */
export function workingTask(taskId: string, contextId: string, toolName: string): Task {
  const message = agentMessage(taskId, contextId, [textPart(`Running ${toolName}.`)]);
  const status = { state: TaskState.TASK_STATE_WORKING, message, timestamp: new Date().toISOString() };
  return { id: taskId, contextId, status, artifacts: [], history: [], metadata: undefined };
}

/**
 * An interim `working` update: a TextPart, then (when there is progress to tell) a DataPart
 * `{ percentage?, current_step? }`, the names of the spec's example and of the AdCP `working` webhook.
 * A percentage outside 0-100 is left out.
 */
export function progressUpdate(
  taskId: string,
  contextId: string,
  toolName: string,
  message?: string,
  progress?: WorkingProgress,
): TaskStatusUpdateEvent {
  const data: JsonObject = {};
  const percentage = progress?.percentage;
  if (typeof percentage === 'number' && percentage >= 0 && percentage <= 100) data.percentage = percentage; // else dropped, as clients would
  if (typeof progress?.step === 'string' && progress.step !== '') data.current_step = progress.step;
  const parts = [textPart(message ?? `Running ${toolName}.`)];
  if (Object.keys(data).length > 0) parts.push(dataPart(data));
  return statusUpdate(taskId, contextId, TaskState.TASK_STATE_WORKING, parts);
}

/**
 * The advisory TextPart of a finished invocation: the terse sentence, except that a Submitted
 * answer's AdCP `task_id` is never repeated there (a2a-profile-extension.md, "Submitted AdCP
 * work": the handle appears exactly once, as `task_id` in the DataPart).
 */
function advisoryText(toolName: string, answer: AdcpAnswer): string {
  const body = answer.body;
  if (!answer.isError && body.status === 'submitted' && !(typeof body.message === 'string' && body.message !== '')) {
    return `${toolName} submitted; follow it with get_task_status.`;
  }
  return terseText(toolName, answer);
}

/** The one artifact of a finished invocation: a TextPart then the final DataPart (a2a-guide, "Response Format"). */
export function resultArtifact(toolName: string, answer: AdcpAnswer): Artifact {
  return {
    artifactId: answer.isError ? 'adcp-error' : 'adcp-result',
    name: 'task_result',
    description: '',
    parts: [textPart(advisoryText(toolName, answer)), dataPart(answer.body)],
    metadata: undefined,
    extensions: [],
  };
}

/** Delivers the whole artifact in one event (not appended to anything, its last chunk). */
export function artifactUpdate(taskId: string, contextId: string, artifact: Artifact): TaskArtifactUpdateEvent {
  return { taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined };
}

/** The terminal update: `completed`, or `failed` for an error answer; its message is the terse sentence only. */
export function finalUpdate(
  taskId: string,
  contextId: string,
  toolName: string,
  answer: AdcpAnswer,
): TaskStatusUpdateEvent {
  const state = answer.isError ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED;
  return statusUpdate(taskId, contextId, state, [textPart(advisoryText(toolName, answer))]);
}

/** A terminal `canceled` update (CancelTask on a running invocation). */
export function canceledUpdate(taskId: string, contextId: string): TaskStatusUpdateEvent {
  return statusUpdate(taskId, contextId, TaskState.TASK_STATE_CANCELED, [textPart('Canceled by the caller.')]);
}
