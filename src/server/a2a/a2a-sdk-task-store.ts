import { Task, TaskState, taskStateFromJSON, taskStateToJSON } from '@a2a-js/sdk';
import type { ListTasksResponse } from '@a2a-js/sdk';
import type { TaskStore as SdkTaskStore, ServerCallContext } from '@a2a-js/sdk/server';
import type { TaskStore } from '../../store/task-store.js';
import { principalOwner } from '../tasks/adcp-tasks.js';

/** Keys of the per-request state the endpoint puts in the SDK's `ServerCallContext`. */
export const A2A_STATE = {
  principal: 'adcp.principal',
  durable: 'adcp.durable',
  rateLimitedMs: 'adcp.rateLimitedMs',
  /** The invocation's input as the profile gate read it (the handler gets exactly this). */
  input: 'adcp.input',
  /** The operation the server resolved (`resolveParsedOperation`): the only one the executor runs. */
  operation: 'adcp.operation',
  /** Fires when the client of a streaming call has gone away (a resubscribe's follower stops on it). */
  clientGone: 'adcp.clientGone',
} as const;

const RECENT_LIMIT = 1000;

/** A 1.x TaskState as the lowercase v0.3 name our store keeps (`TASK_STATE_INPUT_REQUIRED` -> `input-required`). */
export function storedStatus(state: TaskState | undefined): string {
  return taskStateToJSON(state ?? TaskState.TASK_STATE_UNSPECIFIED)
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** The principal the endpoint authenticated for this call. */
export function principalOf(context: ServerCallContext): string {
  const principal = context.state.get(A2A_STATE.principal);
  if (typeof principal !== 'string') throw new Error('a2a endpoint: no principal in the call context');
  return principal;
}

/**
 * The SDK's TaskStore over ours. Every read and write is scoped to the call's principal.
 * Blocking sends finish before they answer: they are kept in a bounded in-memory map (for a
 * later GetTask) instead of the durable store, so they do not count against the per-owner task
 * creation limit. Non-blocking and streaming sends are durable tasks: the executor creates the
 * row (rate-limited), this adapter writes each snapshot into it. A terminal row is never
 * changed (the store refuses), and its stored status wins over the snapshot on load.
 */
export function createSdkTaskStore(store: TaskStore): SdkTaskStore {
  const recent = new Map<string, { owner: string; task: Task }>();
  return {
    async save(task, context) {
      const owner = principalOwner(principalOf(context));
      const blocking = context.state.get(A2A_STATE.durable) === false;
      if (blocking || recent.get(task.id)?.owner === owner) {
        recent.delete(task.id);
        recent.set(task.id, { owner, task: structuredClone(task) });
        if (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
        return;
      }
      await store.update(owner, task.id, { status: storedStatus(task.status?.state), result: Task.toJSON(task) });
    },
    async load(taskId, context) {
      const owner = principalOwner(principalOf(context));
      const kept = recent.get(taskId);
      if (kept !== undefined) return kept.owner === owner ? structuredClone(kept.task) : undefined;
      const stored = await store.get(owner, taskId);
      if (stored === undefined || stored.kind !== 'a2a' || stored.result === undefined) return undefined;
      const task = Task.fromJSON(stored.result);
      if (storedStatus(task.status?.state) !== stored.status) {
        const state = taskStateFromJSON(`TASK_STATE_${stored.status.toUpperCase().replace(/-/g, '_')}`);
        task.status = { state, message: undefined, timestamp: new Date(stored.lastUpdatedAt).toISOString() };
      }
      return task;
    },
    async list(): Promise<ListTasksResponse> {
      // ListTasks is not among the methods the endpoint routes.
      return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
    },
  };
}
