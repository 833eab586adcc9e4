import type { TaskResult } from '../core/task-result.js';
import { isFinalResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { Clock, WaitOptions } from './client-options.js';
import { deadlineSignal } from '../transport/deadline-signal.js';
import { throwIfUnknownTask, unwrapPolledResult } from './unwrap-polled-result.js';
import type { AdcpTransport, ProgressEvent } from '../transport/transport.js';
import type { ActivityListener } from '../telemetry/activity.js';
import { reportStatusChange, tracePoll } from '../telemetry/wait-tracing.js';
import { isFinalStatus } from '../core/final-status.js';
import { normalizeTaskState } from '../core/normalize-task-state.js';
import { isPlainObject } from '../core/plain-object.js';
import { unwrapStreamEnvelope } from '../core/unwrap-stream-envelope.js';

export const DEFAULT_WAIT_TIMEOUT_MS = 3_600_000;
export const DEFAULT_POLL_INTERVAL_MS = 2000;
export const DEFAULT_MAX_POLL_INTERVAL_MS = 30_000;
/** One poll never takes longer than this, ms. */
const MAX_POLL_REQUEST_MS = 60_000;

/** What waiting needs from the client. */
export interface WaitContext {
  /** One call of an AdCP tool: no retries, no idempotency key. */
  callOnce(tool: string, args: JsonObject, signal: AbortSignal): Promise<TaskResult>;
  /** The tool names the agent lists, or `undefined` when they cannot be read. */
  toolNames(signal: AbortSignal): Promise<ReadonlySet<string> | undefined>;
  transport(): Promise<AdcpTransport>;
  clock: Clock;
  maxBytes: number;
  /** Called with every polled result (operations bookkeeping). */
  onPolled?(result: TaskResult): Promise<void>;
  /** The tool that started the task, when known: a poll naming another `task_type` is refused. */
  taskType?: string;
  /** Told of every poll and status change (AdcpClient's `onActivity`). */
  onActivity?: ActivityListener | undefined;
}

/**
 * Follows a `submitted`/`working` result until it is final or needs input, and returns that
 * result (`input-required`/`auth-required` go back to the caller at once).
 * - With an AdCP `taskId`: polls `get_task_status` (`include_result: true`), or the legacy
 *   `tasks/get` tool when the agent lists that and not `get_task_status`.
 * - With only a transport task id (A2A): the transport's `getTask` while the A2A task runs, until
 *   an answer names an AdCP `task_id` (the A2A task ended with AdCP work still `submitted`): then
 *   that task, as above. An A2A task that has ended is never polled for AdCP work
 *   (a2a-profile-extension.md, "Submitted AdCP work"): pending AdCP work without a `task_id` in an
 *   ended A2A task throws `AdcpWireError('protocol')`.
 * Polls back off from `pollIntervalMs` by half again each time up to `maxPollIntervalMs`; a poll
 * that fails for a transient reason (connection refused, rate-limited poll) is retried after the
 * same delay. Throws `AdcpWireError('timeout')` past `timeoutMs`, and `TypeError` for a result
 * with nothing to follow.
 */
export async function waitForResult(
  context: WaitContext,
  start: TaskResult,
  options: WaitOptions = {},
): Promise<TaskResult> {
  if (isSettled(start)) return start;
  const taskId = start.taskId;
  const transportTaskId = start.transportTaskId;
  if (taskId === undefined && transportTaskId === undefined) {
    throw new TypeError(`waitFor: a ${start.status} result without a task id has nothing to follow`);
  }
  if (taskId === undefined) refuseEndedTransportTask(start);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const deadline = deadlineSignal(timeoutMs, options.signal, 'waitFor');
  const maxInterval = options.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS;
  let interval = Math.min(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, maxInterval);
  try {
    let following = taskId;
    let poll =
      taskId !== undefined
        ? await adcpPoller(context, taskId, deadline.signal, start)
        : await transportPoller(context, transportTaskId ?? '');
    let current = start;
    for (;;) {
      await context.clock.sleep(interval, deadline.signal);
      interval = Math.min(maxInterval, Math.ceil(interval * 1.5));
      const polled = await pollOnce(poll, deadline.signal, timeoutMs);
      if (polled === undefined) continue; // transient failure of the poll itself
      reportStatusChange(context.onActivity, current.status, polled);
      current = polled;
      await context.onPolled?.(current);
      // The AdCP task once one is named; before, the transport's task (an A2A GetTask).
      options.onProgress?.(
        progressOf(current, following !== undefined || current.taskId !== undefined ? 'adcp' : current.protocol),
      );
      if (isSettled(current)) return current;
      // The transport task ended carrying AdCP work of its own (submitted, with a task_id): from
      // here the AdCP task is what moves, so follow it by its id (the A2A task will not change).
      if (following === undefined && current.taskId !== undefined) {
        following = current.taskId;
        poll = await adcpPoller(context, following, deadline.signal, start);
      } else if (following === undefined) refuseEndedTransportTask(current);
    }
  } finally {
    deadline.dispose();
  }
}

type Poll = (signal: AbortSignal) => Promise<TaskResult>;

/** Runs one poll; `undefined` when it failed in a way worth polling again. */
async function pollOnce(poll: Poll, signal: AbortSignal, timeoutMs: number): Promise<TaskResult | undefined> {
  const perPoll = deadlineSignal(Math.min(MAX_POLL_REQUEST_MS, timeoutMs), signal, 'task poll');
  try {
    const result = await poll(perPoll.signal);
    return isFailedPoll(result) ? undefined : result;
  } catch (error) {
    if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : error;
    // Polls only read: any dropped connection or slow poll is worth another try.
    if (error instanceof AdcpWireError && (error.retryable || error.code === 'network' || error.code === 'timeout'))
      return undefined;
    throw error;
  } finally {
    perPoll.dispose();
  }
}

/** The task-status tools agents offer, preferred first: the AdCP 3 tool, then the legacy names. */
const STATUS_TOOLS = ['get_task_status', 'tasks/get', 'tasks_get'] as const;

/** The task-status tool to call at an agent that lists `names` (see `STATUS_TOOLS`). */
export function statusToolFor(names: ReadonlySet<string> | undefined): string {
  return STATUS_TOOLS.find((name) => names?.has(name) === true) ?? 'get_task_status';
}

/**
 * AdCP polling with the task-status tool the agent lists (its MCP tools or A2A skills):
 * `get_task_status`, else the legacy `tasks/get` or `tasks_get`; `get_task_status` when the list
 * cannot be read or names none of them. Each poll is a call of its own (over A2A, a task in a
 * context of its own): the results keep the transport task and context ids of `origin`, the call
 * being followed, so a caller never sees (or continues) a poll's ids in their place.
 */
async function adcpPoller(
  context: WaitContext,
  taskId: string,
  signal: AbortSignal,
  origin: TaskResult,
): Promise<Poll> {
  const tool = statusToolFor(await context.toolNames(signal).catch(() => undefined));
  return async (s) => {
    const polled = await context.callOnce(tool, { task_id: taskId, include_result: true }, s);
    checkCorrelation(polled, taskId, context.taskType);
    throwIfUnknownTask(polled, taskId, tool);
    const result = unwrapPolledResult(polled);
    if (origin.transportTaskId === undefined) delete result.transportTaskId;
    else result.transportTaskId = origin.transportTaskId;
    if (origin.contextId === undefined) delete result.contextId;
    else result.contextId = origin.contextId;
    return result;
  };
}

/**
 * task-lifecycle.md, "Typed task results in SDKs": a status answer about another task, or of
 * another `task_type` than the tool that started it, is a task-correlation failure, not progress.
 */
function checkCorrelation(polled: TaskResult, taskId: string, taskType: string | undefined): void {
  const envelope = polled.data;
  if (envelope === undefined) return;
  const gotId = envelope['task_id'];
  const gotType = envelope['task_type'];
  const wrongId = gotId !== undefined && gotId !== taskId;
  const wrongType = taskType !== undefined && gotType !== undefined && gotType !== taskType;
  if (wrongId || wrongType) {
    throw new AdcpWireError(
      'protocol',
      `task-correlation failure: polled ${taskId}${taskType ? ` (${taskType})` : ''} and got an answer about another task`,
    );
  }
}

async function transportPoller(context: WaitContext, transportTaskId: string): Promise<Poll> {
  const transport = await context.transport();
  const getTask = transport.getTask?.bind(transport);
  if (getTask === undefined) {
    throw new TypeError(`waitFor: the ${transport.protocol} transport cannot follow task ${transportTaskId}`);
  }
  let polls = 0;
  const poll = { url: '', tool: context.taskType ?? 'task', protocol: transport.protocol, method: 'GetTask' };
  return (signal) =>
    tracePoll({ ...poll, attempt: ++polls, onActivity: context.onActivity }, () =>
      getTask(transportTaskId, { signal, maxBytes: context.maxBytes }),
    );
}

/**
 * Throws when `result` (pending, no AdCP `task_id`) came from an A2A task that has already ended:
 * polling that task again would never show the AdCP work, and the answer gave no handle for
 * `get_task_status`.
 */
function refuseEndedTransportTask(result: TaskResult): void {
  if (result.protocol !== 'a2a') return;
  const task = unwrapStreamEnvelope(result.raw);
  const status = isPlainObject(task) && isPlainObject(task['status']) ? task['status'] : undefined;
  const state = normalizeTaskState(status?.['state']);
  if (!isFinalStatus(state)) return;
  throw new AdcpWireError(
    'protocol',
    `waitFor: A2A task ${result.transportTaskId ?? '(no id)'} is ${state}, but its AdCP answer is ${result.status} without a task_id to poll with get_task_status`,
  );
}

/** Final, or waiting on the caller. */
function isSettled(result: TaskResult): boolean {
  return isFinalResult(result) || result.status === 'input-required' || result.status === 'auth-required';
}

/**
 * A poll refused for a transient reason (rate limit, unavailable), as opposed to the task having
 * failed: a transient error with no AdCP payload, or a payload that is only the error.
 */
function isFailedPoll(result: TaskResult): boolean {
  if (result.status !== 'failed' || result.error.action !== 'retry') return false;
  return result.data === undefined || result.data['status'] === undefined;
}

function progressOf(result: TaskResult, lifecycle: ProgressEvent['lifecycle']): ProgressEvent {
  const event: ProgressEvent = { lifecycle, status: result.status };
  if (result.taskId !== undefined) event.taskId = result.taskId;
  if (result.message !== undefined) event.message = result.message;
  const progress = 'progress' in result ? result.progress : undefined;
  if (progress?.percentage !== undefined) event.percentage = progress.percentage;
  if (progress?.step !== undefined) event.step = progress.step;
  if (result.data !== undefined) event.data = result.data;
  return event;
}
