import type { IncomingMessage } from 'node:http';
import { Task } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus } from '@a2a-js/sdk/server';
import type { TaskStore } from '../../store/task-store.js';
import type { AdcpTaskRunner } from '../tasks/adcp-tasks.js';
import { principalOwner } from '../tasks/adcp-tasks.js';
import { A2A_STATE, principalOf, storedStatus } from './a2a-sdk-task-store.js';
import {
  artifactUpdate,
  canceledUpdate,
  finalUpdate,
  progressUpdate,
  resultArtifact,
  workingTask,
} from './a2a-sdk-events.js';
import type { AdcpAnswer } from '../calls/invoke-tool.js';
import { errorAnswer, invokeTool } from '../calls/invoke-tool.js';
import { isJsonObject } from '../../core/json-object.js';
import { findInexactInteger } from '../../core/json-number.js';
import type { AdcpServing } from '../tools/adcp-serving.js';
import type { AdcpToolDefinition, WorkingProgress } from '../types.js';
import type { CancelWatch } from '../tasks/cancel-watch.js';

export interface AdcpExecutorOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  adcpVersion: string;
  serving?: AdcpServing;
  requestTimeoutMs: number;
  /** Aborts the invocation of a durable task cancelled through another instance of a fleet. */
  cancelWatch?: CancelWatch;
}

export interface AdcpExecutor extends AgentExecutor {
  /**
   * Aborts every running invocation (server shutdown) and resolves once each has written its
   * final state to our store directly (the SDK's event processing may outlive the store).
   */
  abortAll(): Promise<void>;
  /**
   * The operation a task this instance started was created for, when `owner` created it (the
   * last 1,000 tasks; durable tasks are in the store with their `taskType` as well).
   */
  operationOf(owner: string, taskId: string): string | undefined;
}

/** How many started tasks the executor remembers the operation of (blocking tasks live only here). */
const STARTED_LIMIT = 1000;

/**
 * The SDK AgentExecutor that runs one AdCP tool per message. The endpoint has already checked
 * the invocation (one DataPart `{ skill, input }`, a known skill), so this only reads it.
 * A durable (non-blocking or streaming) send creates its row in our store first; over the
 * per-owner rate limit it publishes nothing and records the refusal for the endpoint to answer.
 * Every invocation publishes the sequence of `a2a-sdk-events.ts` (the only one the SDK lets a
 * stream carry: one Task, then updates); the SDK folds it into the stored Task that a blocking
 * send answers with and `GetTask` returns.
 */
export function createAdcpExecutor(options: AdcpExecutorOptions): AdcpExecutor {
  const running = new Map<
    string,
    { controller: AbortController; contextId: string; canceled: boolean; done: Promise<void> }
  >();
  let closing = false;
  const startedTasks = new Map<string, { owner: string; operation: string }>();
  const cancel = (taskId: string, bus: ExecutionEventBus) => {
    const entry = running.get(taskId);
    if (entry === undefined || entry.canceled) return;
    entry.canceled = true;
    entry.controller.abort(new Error('canceled'));
    // An update, not a Task: a stream has already carried its one Task event.
    bus.publish(AgentEvent.statusUpdate(canceledUpdate(taskId, entry.contextId)));
  };
  return {
    async execute(request, bus) {
      const { taskId, contextId, context } = request;
      // The resolved operation, handed over by the endpoint (rule 3 of the erratum): the SDK's own
      // decoding of the Message must name the same skill, or nothing runs.
      const operation = context.state.get(A2A_STATE.operation);
      const dataParts = request.userMessage.parts.filter((p) => p.content?.$case === 'data');
      const part = dataParts.length === 1 ? dataParts[0] : undefined;
      const data = part?.content?.$case === 'data' && isJsonObject(part.content.value) ? part.content.value : {};
      const tool = typeof operation === 'string' && data.skill === operation ? options.tools.get(operation) : undefined;
      const principal = principalOf(context);
      if (tool === undefined) {
        // Unreachable (the endpoint refuses unknown and unresolved skills first): refuse, run nothing.
        const name = typeof operation === 'string' ? operation : 'unknown';
        const refused = errorAnswer(
          {
            code: 'INVALID_REQUEST',
            message: 'The Message does not resolve to the dispatched operation.',
            recovery: 'correctable',
          },
          {},
          options.adcpVersion,
        );
        const final = finalUpdate(taskId, contextId, name, refused);
        bus.publish(
          AgentEvent.task({
            ...workingTask(taskId, contextId, name),
            status: final.status,
            artifacts: [resultArtifact(name, refused)],
          }),
        );
        return;
      }
      const owner = principalOwner(principal);
      startedTasks.set(taskId, { owner, operation: tool.name });
      if (startedTasks.size > STARTED_LIMIT) startedTasks.delete(startedTasks.keys().next().value as string);
      const durable = context.state.get(A2A_STATE.durable) === true;
      let settle = () => {};
      const entry = {
        controller: new AbortController(),
        contextId,
        canceled: false,
        done: new Promise<void>((resolve) => (settle = resolve)),
      };
      let started = false;
      let finished = false;
      let untrack: (() => void) | undefined;
      const finish = async (handlerAnswer: AdcpAnswer) => {
        if (entry.canceled || finished) return;
        finished = true;
        const answer = encodableOverA2a(tool.name, handlerAnswer, context.state.get(A2A_STATE.input), options);
        const artifact = resultArtifact(tool.name, answer);
        const final = finalUpdate(taskId, contextId, tool.name, answer);
        const task = { ...workingTask(taskId, contextId, tool.name), status: final.status, artifacts: [artifact] };
        if (closing) {
          if (durable)
            await options.store.update(owner, taskId, {
              status: storedStatus(final.status?.state),
              result: Task.toJSON(task),
            });
        } else if (started) {
          bus.publish(AgentEvent.artifactUpdate(artifactUpdate(taskId, contextId, artifact)));
          bus.publish(AgentEvent.statusUpdate(final));
        } else {
          bus.publish(AgentEvent.task(task)); // failed before the working Task went out
        }
      };
      const onWorking = (message?: string, progress?: WorkingProgress) => {
        if (!started || entry.canceled || finished || closing) return;
        bus.publish(AgentEvent.statusUpdate(progressUpdate(taskId, contextId, tool.name, message, progress)));
      };
      const timer = setTimeout(() => entry.controller.abort(new Error('timeout')), options.requestTimeoutMs);
      try {
        if (durable) {
          const created = await options.store.create({
            owner,
            kind: 'a2a',
            taskId,
            taskType: tool.name,
            status: 'working',
          });
          if (!created.ok) {
            context.state.set(A2A_STATE.rateLimitedMs, created.retryAfterMs);
            return;
          }
        }
        running.set(taskId, entry);
        // Cancelled through another instance: the row says so; the work here stops as it would
        // for a cancel served here (the stored `canceled` is final, so nothing overwrites it).
        if (durable) untrack = options.cancelWatch?.track(taskId, () => cancel(taskId, bus));
        const working = workingTask(taskId, contextId, tool.name);
        // Written here too so a GetTask racing the SDK's first save finds the row readable.
        if (durable) await options.store.update(owner, taskId, { result: Task.toJSON(working) });
        bus.publish(AgentEvent.task(working));
        started = true;
        const answer = await invokeTool({
          tool,
          args: context.state.get(A2A_STATE.input),
          protocol: 'a2a',
          principal,
          headers: (context.state.get('headers') ?? {}) as IncomingMessage['headers'],
          signal: entry.controller.signal,
          runner: options.runner,
          adcpVersion: options.adcpVersion,
          ...(options.serving === undefined ? {} : { serving: options.serving }),
          onWorking,
        });
        await finish(answer);
      } catch {
        // A store failure. Never let the SDK see the exception: it would put its text in the task.
        const unavailable = {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The agent could not run the task.',
          recovery: 'transient',
        } as const;
        await finish(errorAnswer(unavailable, context.state.get(A2A_STATE.input), options.adcpVersion)).catch(
          () => undefined,
        );
      } finally {
        clearTimeout(timer);
        untrack?.();
        running.delete(taskId);
        settle();
      }
    },
    async cancelTask(taskId, bus) {
      cancel(taskId, bus);
    },
    operationOf(owner, taskId) {
      const entry = startedTasks.get(taskId);
      return entry !== undefined && entry.owner === owner ? entry.operation : undefined;
    },
    async abortAll() {
      closing = true;
      const entries = [...running.values()];
      for (const entry of entries) entry.controller.abort(new Error('server closing'));
      await Promise.all(entries.map((entry) => entry.done));
    },
  };
}

/**
 * The A2A profile's JSON number rule on the sending side (a2a-profile-extension.md, "JSON number
 * interoperability"): an answer holding an integer outside ±(2^53−1) is never encoded, since a
 * DataPart's numbers are binary64 and the buyer would read a rounded value; the buyer gets a
 * terminal CONFIGURATION_ERROR naming the pointer instead (such a value travels as a string).
 */
function encodableOverA2a(
  toolName: string,
  answer: AdcpAnswer,
  input: unknown,
  options: { adcpVersion: string },
): AdcpAnswer {
  const pointer = findInexactInteger(answer.body);
  if (pointer === undefined) return answer;
  return errorAnswer(
    {
      code: 'CONFIGURATION_ERROR',
      message: `The agent's answer to ${toolName} holds an integer outside ±(2^53−1) at ${pointer}, which A2A cannot carry exactly (send it as a string).`,
      recovery: 'terminal',
    },
    input,
    options.adcpVersion,
  );
}
