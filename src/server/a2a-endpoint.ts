import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonObject } from '../core/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { AdcpTaskRunner } from './adcp-tasks.js';
import { principalOwner } from './adcp-tasks.js';
import type { A2AWire } from './a2a-wire.js';
import { A2A_METHODS, parseInvocation, taskForWire } from './a2a-wire.js';
import type { AdcpAnswer } from './invoke-tool.js';
import { invokeTool, terseText } from './invoke-tool.js';
import { isJsonObject } from './json-object.js';
import type { AdcpToolDefinition } from './types.js';

export interface A2AEndpointOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  adcpVersion: string;
  requestTimeoutMs: number;
}

export interface A2AEndpoint {
  /** Serves one JSON-RPC request (body already read and parsed). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: string): Promise<void>;
  close(): Promise<void>;
}

type RpcId = string | number | null;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonObject,
  ) {
    super(message);
  }
}

const A2A_OWNER = principalOwner;
const RECENT_LIMIT = 1000;

/** The Task for a finished AdCP answer: one artifact, a TextPart then the final DataPart. */
function finishedTask(id: string, contextId: string, toolName: string, answer: AdcpAnswer): JsonObject {
  return {
    kind: 'task',
    id,
    contextId,
    status: { state: answer.isError ? 'failed' : 'completed', timestamp: new Date().toISOString() },
    artifacts: [
      {
        artifactId: answer.isError ? 'adcp-error' : 'adcp-result',
        name: 'task_result',
        parts: [
          { kind: 'text', text: terseText(toolName, answer) },
          { kind: 'data', data: answer.body },
        ],
      },
    ],
  };
}

function workingTask(id: string, contextId: string, toolName: string): JsonObject {
  return {
    kind: 'task',
    id,
    contextId,
    status: {
      state: 'working',
      timestamp: new Date().toISOString(),
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'agent',
        taskId: id,
        contextId,
        parts: [{ kind: 'text', text: `Running ${toolName}.` }],
      },
    },
  };
}

/** A2A JSON-RPC for both wires from one set of tools; tasks kept in the owner-scoped store. */
export function createA2AEndpoint(options: A2AEndpointOptions): A2AEndpoint {
  const running = new Map<string, AbortController>();

  // Blocking sends finish before they answer: they are kept in a bounded in-memory map (for a
  // later GetTask) instead of the durable store, so they do not count against the per-owner task
  // creation limit. Non-blocking and streaming sends are durable tasks.
  const recent = new Map<string, { owner: string; task: JsonObject }>();
  const remember = (owner: string, task: JsonObject) => {
    recent.set(String(task.id), { owner, task });
    if (recent.size > RECENT_LIMIT) recent.delete(recent.keys().next().value as string);
  };

  const readTask = async (principal: string, params: unknown): Promise<JsonObject> => {
    const id = isJsonObject(params) ? params.id : undefined;
    if (typeof id !== 'string' || id === '') throw new RpcError(-32602, 'params.id is required');
    const kept = recent.get(id);
    if (kept !== undefined && kept.owner === A2A_OWNER(principal)) return structuredClone(kept.task);
    const stored = await options.store.get(A2A_OWNER(principal), id);
    if (stored === undefined || stored.kind !== 'a2a' || !isJsonObject(stored.result)) throw new RpcError(-32001, 'Task not found');
    const task = stored.result;
    // The stored status wins over the snapshot (a cancel lands after the snapshot was written).
    const state = isJsonObject(task.status) ? task.status.state : undefined;
    if (state !== stored.status) task.status = { state: stored.status, timestamp: new Date(stored.lastUpdatedAt).toISOString() };
    return task;
  };

  /** Starts the invocation; resolves with the working snapshot and a promise of the final task. */
  const start = async (
    req: IncomingMessage,
    params: unknown,
    principal: string,
    durable: boolean,
  ): Promise<{ working: JsonObject; finished: Promise<JsonObject> }> => {
    const message = isJsonObject(params) ? params.message : undefined;
    const parsed = parseInvocation(message);
    if (!parsed.ok) {
      throw new RpcError(-32602, `Invalid AdCP invocation: ${parsed.message}`, {
        adcp_error: { code: 'INVALID_REQUEST', message: parsed.message, recovery: 'correctable' },
      });
    }
    const tool = options.tools.get(parsed.skill);
    if (tool === undefined) {
      throw new RpcError(-32602, 'Unknown skill', {
        adcp_error: { code: 'INVALID_REQUEST', message: 'Unknown skill.', recovery: 'correctable', field: 'skill' },
      });
    }
    const id = randomUUID();
    const contextId = parsed.contextId ?? randomUUID();
    const owner = A2A_OWNER(principal);
    const created = durable
      ? await options.store.create({ owner, kind: 'a2a', taskId: id, taskType: tool.name, status: 'working' })
      : ({ ok: true } as const);
    if (!created.ok) {
      throw new RpcError(-32029, 'Rate limit exceeded', {
        adcp_error: { code: 'RATE_LIMITED', message: 'Too many requests.', recovery: 'transient', retry_after: Math.ceil(created.retryAfterMs / 1000) },
      });
    }
    const working = workingTask(id, contextId, tool.name);
    if (durable) await options.store.update(owner, id, { result: working });
    const controller = new AbortController();
    running.set(id, controller);
    const timer = setTimeout(() => controller.abort(new Error('timeout')), options.requestTimeoutMs);
    const finished = invokeTool({
      tool,
      args: parsed.input,
      protocol: 'a2a',
      principal,
      headers: req.headers,
      signal: controller.signal,
      runner: options.runner,
      adcpVersion: options.adcpVersion,
    })
      .then(async (answer) => {
        const task = finishedTask(id, contextId, tool.name, answer);
        if (!durable) {
          remember(owner, task);
          return task;
        }
        const outcome = await options.store.update(owner, id, { status: answer.isError ? 'failed' : 'completed', result: task });
        return outcome.ok ? task : readTask(principal, { id });
      })
      .finally(() => {
        clearTimeout(timer);
        running.delete(id);
      });
    finished.catch(() => undefined);
    return { working, finished };
  };

  const cancel = async (principal: string, params: unknown): Promise<JsonObject> => {
    const task = await readTask(principal, params);
    const id = String(task.id);
    if (recent.has(id)) throw new RpcError(-32002, 'Task cannot be canceled');
    const outcome = await options.store.cancel(A2A_OWNER(principal), id);
    if (!outcome.ok) throw new RpcError(-32002, 'Task cannot be canceled');
    running.get(id)?.abort(new Error('canceled'));
    return readTask(principal, { id });
  };

  const writeJson = (res: ServerResponse, id: RpcId, payload: { result: unknown } | { error: JsonObject }) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, ...payload }));
  };

  const stream = async (req: IncomingMessage, res: ServerResponse, id: RpcId, wire: A2AWire, params: unknown, principal: string) => {
    const { working, finished } = await start(req, params, principal, true);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const event = (task: JsonObject) => {
      const result = wire === '1.0' ? { task: taskForWire(task, wire) } : task;
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
    };
    event(working);
    event(await finished);
    res.end();
  };

  return {
    async handle(req, res, body, principal) {
      if (!isJsonObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
        writeJson(res, null, { error: { code: -32600, message: 'Invalid JSON-RPC request' } });
        return;
      }
      const id: RpcId = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
      const route = A2A_METHODS[body.method];
      try {
        if (route === undefined) throw new RpcError(-32601, 'Method not found');
        const [wire, op] = route;
        if (op === 'stream') {
          await stream(req, res, id, wire, body.params, principal);
          return;
        }
        let task: JsonObject;
        if (op === 'send') {
          const config = isJsonObject(body.params) && isJsonObject(body.params.configuration) ? body.params.configuration : {};
          const wait = wire === '1.0' ? config.returnImmediately !== true : config.blocking !== false;
          const started = await start(req, body.params, principal, !wait);
          task = wait ? await started.finished : started.working;
        } else if (op === 'get') {
          task = await readTask(principal, body.params);
        } else {
          task = await cancel(principal, body.params);
        }
        const shown = taskForWire(task, wire);
        writeJson(res, id, { result: wire === '1.0' && op === 'send' ? { task: shown } : shown });
      } catch (error) {
        if (res.headersSent) {
          res.end();
          return;
        }
        const rpc = error instanceof RpcError ? error : new RpcError(-32603, 'Internal error');
        writeJson(res, id, { error: { code: rpc.code, message: rpc.message, ...(rpc.data === undefined ? {} : { data: rpc.data }) } });
      }
    },
    async close() {
      for (const controller of running.values()) controller.abort(new Error('server closing'));
    },
  };
}
