import { TaskState } from '@a2a-js/sdk';
import type { DefaultRequestHandler, ServerCallContext, TaskStore as SdkTaskStore } from '@a2a-js/sdk/server';
import { setTimeout as delay } from 'node:timers/promises';
import { artifactUpdate } from './a2a-sdk-events.js';
import { A2A_STATE } from './a2a-sdk-task-store.js';

const TERMINAL: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

type Resubscribe = DefaultRequestHandler['resubscribe'];
type StreamEvent = Resubscribe extends (...args: never[]) => AsyncGenerator<infer E> ? E : never;

/**
 * Makes the SDK's resubscribe follow a task that runs on another instance of a fleet. The SDK
 * streams the events of work running in this process; for a task running elsewhere it sends the
 * stored Task and ends the stream while the task is still working. Then this reads the shared
 * store every `pollMs` (at most `timeoutMs` in all) and streams what changed: the artifacts and
 * the final status once the task ends, as the instance running it would have. It stops as soon
 * as the client goes away (the endpoint's `A2A_STATE.clientGone` signal).
 */
export function followResubscribeInStore(
  handler: DefaultRequestHandler,
  tasks: SdkTaskStore,
  options: { pollMs: number; timeoutMs: number },
): void {
  const resubscribe = handler.resubscribe.bind(handler);
  handler.resubscribe = async function* (params, context: ServerCallContext): AsyncGenerator<StreamEvent> {
    let state: TaskState | undefined;
    let contextId = '';
    for await (const event of resubscribe(params, context)) {
      const payload = event.payload;
      if (payload?.$case === 'task') {
        state = payload.value.status?.state;
        contextId = payload.value.contextId;
      } else if (payload?.$case === 'statusUpdate') {
        state = payload.value.status?.state;
      }
      yield event;
    }
    if (state === undefined || TERMINAL.has(state)) return;
    const gone = context.state.get(A2A_STATE.clientGone) as AbortSignal | undefined;
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline && gone?.aborted !== true) {
      const waited = await delay(options.pollMs, true, { signal: gone }).catch(() => false);
      if (!waited) return; // the client went away
      const task = await tasks.load(params.id, context);
      if (task === undefined) return; // expired meanwhile
      const status = task.status;
      if (status === undefined || status.state === state) continue;
      state = status.state;
      if (state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED) {
        for (const artifact of task.artifacts) {
          yield { payload: { $case: 'artifactUpdate', value: artifactUpdate(task.id, contextId, artifact) } };
        }
      }
      yield {
        payload: {
          $case: 'statusUpdate',
          value: { taskId: task.id, contextId: task.contextId || contextId, status, metadata: undefined },
        },
      };
      if (TERMINAL.has(state)) return;
    }
  };
}
