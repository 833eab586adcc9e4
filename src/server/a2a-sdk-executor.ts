import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Role, Task, TaskState } from '@a2a-js/sdk';
import type { Message, Part } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import type { TaskStore } from '../store/task-store.js';
import type { AdcpTaskRunner } from './adcp-tasks.js';
import { principalOwner } from './adcp-tasks.js';
import { A2A_STATE, principalOf, storedStatus } from './a2a-sdk-task-store.js';
import type { AdcpAnswer } from './invoke-tool.js';
import { errorAnswer, invokeTool, terseText } from './invoke-tool.js';
import { isJsonObject } from './json-object.js';
import type { AdcpToolDefinition } from './types.js';

export interface AdcpExecutorOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  adcpVersion: string;
  requestTimeoutMs: number;
}

export interface AdcpExecutor extends AgentExecutor {
  /**
   * Aborts every running invocation (server shutdown) and resolves once each has written its
   * final state to our store directly (the SDK's event processing may outlive the store).
   */
  abortAll(): Promise<void>;
}

const textPart = (text: string): Part => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
const dataPart = (data: unknown): Part => ({ content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: '' });

function task(id: string, contextId: string, state: TaskState, extra: Partial<Task> = {}, message?: Message): Task {
  return {
    id,
    contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
    ...extra,
  };
}

function workingTask(id: string, contextId: string, toolName: string): Task {
  const message = {
    messageId: randomUUID(),
    contextId,
    taskId: id,
    role: Role.ROLE_AGENT,
    parts: [textPart(`Running ${toolName}.`)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return task(id, contextId, TaskState.TASK_STATE_WORKING, {}, message);
}

/** The finished Task: one artifact, a TextPart then the final DataPart (a2a-guide, "Response Format"). */
function finishedTask(id: string, contextId: string, toolName: string, answer: AdcpAnswer): Task {
  return task(id, contextId, answer.isError ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED, {
    artifacts: [
      {
        artifactId: answer.isError ? 'adcp-error' : 'adcp-result',
        name: 'task_result',
        description: '',
        parts: [textPart(terseText(toolName, answer)), dataPart(answer.body)],
        metadata: undefined,
        extensions: [],
      },
    ],
  });
}

/**
 * The SDK AgentExecutor that runs one AdCP tool per message. The endpoint has already checked
 * the invocation (one DataPart `{ skill, input }`, a known skill), so this only reads it.
 * A durable (non-blocking or streaming) send creates its row in our store first; over the
 * per-owner rate limit it publishes nothing and records the refusal for the endpoint to answer.
 */
export function createAdcpExecutor(options: AdcpExecutorOptions): AdcpExecutor {
  const running = new Map<string, { controller: AbortController; contextId: string; canceled: boolean; done: Promise<void> }>();
  let closing = false;
  return {
    async execute(request, bus) {
      const { taskId, contextId, context } = request;
      const part = request.userMessage.parts.find((p) => p.content?.$case === 'data');
      const data = part?.content?.$case === 'data' && isJsonObject(part.content.value) ? part.content.value : {};
      const tool = options.tools.get(String(data.skill));
      const principal = principalOf(context);
      if (tool === undefined) return; // unreachable: the endpoint refuses unknown skills first
      const owner = principalOwner(principal);
      const durable = context.state.get(A2A_STATE.durable) === true;
      let settle = () => {};
      const entry = { controller: new AbortController(), contextId, canceled: false, done: new Promise<void>((resolve) => (settle = resolve)) };
      const finish = async (answer: AdcpAnswer) => {
        if (entry.canceled) return;
        const final = finishedTask(taskId, contextId, tool.name, answer);
        if (!closing) bus.publish(AgentEvent.task(final));
        else if (durable) await options.store.update(owner, taskId, { status: storedStatus(final.status?.state), result: Task.toJSON(final) });
      };
      const timer = setTimeout(() => entry.controller.abort(new Error('timeout')), options.requestTimeoutMs);
      try {
        if (durable) {
          const created = await options.store.create({ owner, kind: 'a2a', taskId, taskType: tool.name, status: 'working' });
          if (!created.ok) {
            context.state.set(A2A_STATE.rateLimitedMs, created.retryAfterMs);
            return;
          }
        }
        running.set(taskId, entry);
        const working = workingTask(taskId, contextId, tool.name);
        // The SDK allows one Task event per stream, then only updates; AdCP wants the final
        // result as a Task. So a stream publishes the final Task only, and GetTask reads the
        // working snapshot written here. A non-blocking send answers with the working Task.
        if (durable) await options.store.update(owner, taskId, { result: Task.toJSON(working) });
        if (context.state.get(A2A_STATE.stream) !== true) bus.publish(AgentEvent.task(working));
        const answer = await invokeTool({
          tool,
          args: data.input ?? {},
          protocol: 'a2a',
          principal,
          headers: (context.state.get('headers') ?? {}) as IncomingMessage['headers'],
          signal: entry.controller.signal,
          runner: options.runner,
          adcpVersion: options.adcpVersion,
        });
        await finish(answer);
      } catch {
        // A store failure. Never let the SDK see the exception: it would put its text in the task.
        const unavailable = { code: 'SERVICE_UNAVAILABLE', message: 'The agent could not run the task.', recovery: 'transient' } as const;
        await finish(errorAnswer(unavailable, data.input, options.adcpVersion)).catch(() => undefined);
      } finally {
        clearTimeout(timer);
        running.delete(taskId);
        settle();
      }
    },
    async cancelTask(taskId, bus) {
      const entry = running.get(taskId);
      if (entry === undefined) return;
      entry.canceled = true;
      entry.controller.abort(new Error('canceled'));
      bus.publish(AgentEvent.task(task(taskId, entry.contextId, TaskState.TASK_STATE_CANCELED)));
    },
    async abortAll() {
      closing = true;
      const entries = [...running.values()];
      for (const entry of entries) entry.controller.abort(new Error('server closing'));
      await Promise.all(entries.map((entry) => entry.done));
    },
  };
}
