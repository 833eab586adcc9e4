import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';
import { isJsonObject } from '../../core/json-object.js';
import { unknownToolData } from '../tools/tool-error.js';
import type { JsonObject } from '../../core/types.js';
import { taskSupportFor } from '../../core/tool-table.js';
import type { TaskStore } from '../../store/task-store.js';
import type { AdcpTaskRunner } from '../tasks/adcp-tasks.js';
import type { AdcpServing } from '../tools/adcp-serving.js';
import { invokeTool } from '../calls/invoke-tool.js';
import { toCallToolResult } from './mcp-call-result.js';
import { declaresTasksExtension, MCP_TASKS_EXTENSION, toModernTask } from './mcp-modern-task.js';
import { progressReporter } from './mcp-progress.js';
import { startMcpWork, type McpTaskWork, type McpWork, type WorkingReport } from './mcp-task-work.js';
import { mcpTaskOwner } from './mcp-task-store.js';
import { mcpToolList } from './mcp-tool-list.js';
import type { AdcpToolDefinition } from '../types.js';

export interface ModernMcpEndpointOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  taskWork: McpTaskWork;
  name: string;
  version: string;
  adcpVersion: string;
  serving?: AdcpServing;
  /** Publish `outputSchema` for AdCP tools (see CreateAdcpServerOptions). */
  outputSchemas?: boolean;
  requestTimeoutMs: number;
  /** A task-capable call still running after this long becomes an MCP task (see `CreateAdcpServerOptions`). */
  taskAfterMs: number;
  maxBodyBytes: number;
}

export interface ModernMcpEndpoint {
  /** Serves one modern-era request whose body was already read and parsed. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: string): Promise<void>;
  close(): Promise<void>;
}

/** What the endpoint hands the per-request server: who asks, with which headers. */
interface Caller {
  principal: string;
  headers: IncomingMessage['headers'];
}

const TaskIdParams = z.looseObject({ taskId: z.string().min(1).max(256) });

/**
 * True when the request belongs to the 2025 era (an `initialize`, a session request, a body
 * without the per-request `_meta` envelope): the SDK's own routing predicate, fed the parsed body.
 */
export async function isLegacyMcpRequest(req: IncomingMessage, body: unknown): Promise<boolean> {
  if (req.method !== 'POST') return true; // GET/DELETE are 2025 session operations
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return isLegacyRequest(new Request('http://localhost/mcp', { method: 'POST', headers }), body);
}

function callerOf(ctx: ServerContext): Caller {
  const caller = ctx.http?.authInfo?.extra?.adcpCaller;
  if (caller === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, 'No caller');
  return caller as Caller;
}

function rateLimited(retryAfterMs: number): ProtocolError {
  return new ProtocolError(-32029, 'Task creation rate limit exceeded', {
    adcp_error: {
      code: 'RATE_LIMITED',
      message: 'Too many tasks created; retry later.',
      recovery: 'transient',
      retry_after: Math.ceil(retryAfterMs / 1000),
    },
  });
}

/** Sends `ctx.working` reports as `notifications/progress` when the request carries a progress token. */
function progressNotifier(meta: unknown, ctx: ServerContext): WorkingReport | undefined {
  const token = isJsonObject(meta) ? meta.progressToken : undefined;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  const toParams = progressReporter(token);
  return (...report) => {
    const progress = toParams(...report);
    void ctx.mcpReq.notify({ method: 'notifications/progress', params: progress }).catch(() => undefined);
  };
}

/** Resolves with the answer if it comes within `ms`, else with undefined. */
async function within<T>(answer: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * MCP 2026-07-28 (the modern era) over Streamable HTTP, stateless: every request is answered by
 * a fresh SDK v2 server from one factory, so any instance sharing the task store answers any
 * request. Serves `server/discover`, `tools/list` (2020-12 schemas), `tools/call`, and the
 * Tasks extension (`io.modelcontextprotocol/tasks`: `tasks/get`, `tasks/update`,
 * `tasks/cancel`) from the principal-scoped durable task store.
 */
export function createModernMcpEndpoint(options: ModernMcpEndpointOptions): ModernMcpEndpoint {
  const { store, taskWork } = options;
  // Built on the first tools/list (AdCP tools' discovery schemas are read from the schema tree).
  let listed: JsonObject[] | undefined;
  const toolList = (): JsonObject[] =>
    (listed ??= mcpToolList(options.tools, {
      release: options.serving?.defaultRelease ?? options.adcpVersion,
      outputSchemas: options.outputSchemas === true,
    }));

  const run = (
    tool: AdcpToolDefinition,
    args: unknown,
    caller: Caller,
    signal: AbortSignal,
    onWorking?: WorkingReport,
  ) =>
    invokeTool({
      tool,
      args,
      protocol: 'mcp',
      principal: caller.principal,
      headers: caller.headers,
      signal,
      runner: options.runner,
      adcpVersion: options.adcpVersion,
      ...(options.serving === undefined ? {} : { serving: options.serving }),
      ...(onWorking === undefined ? {} : { onWorking }),
    });

  /** Stores a task for `work` and binds the work to it (SEP-2663: created before it is returned). */
  const createTask = async (caller: Caller, tool: AdcpToolDefinition, work: () => McpWork) => {
    const owner = mcpTaskOwner(caller.principal);
    const created = await store.create({ owner, kind: 'mcp', taskType: tool.name });
    if (!created.ok) return created;
    taskWork.adopt(owner, created.task, tool.name, work());
    return { ok: true as const, result: { resultType: 'task', ...toModernTask(created.task) } };
  };

  const callTool = async (params: { name: string; arguments?: unknown; _meta?: unknown }, ctx: ServerContext) => {
    const caller = callerOf(ctx);
    const tool = options.tools.get(params.name);
    if (tool === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}`, unknownToolData('tool'));
    const args = params.arguments ?? {};
    const support = taskSupportFor(tool.name, tool.taskSupport);
    const tasksOk = declaresTasksExtension(ctx.mcpReq.envelope);
    const start = () => startMcpWork((signal, onWorking) => run(tool, args, caller, signal, onWorking));
    if (support === 'required') {
      // SEP-2663, "Capability Negotiation": a call that can only be a task needs the extension.
      if (!tasksOk) {
        throw new ProtocolError(
          ProtocolErrorCode.MissingRequiredClientCapability,
          'Missing required client capability',
          {
            requiredCapabilities: { extensions: { [MCP_TASKS_EXTENSION]: {} } },
          },
        );
      }
      const created = await createTask(caller, tool, start);
      if (!created.ok) throw rateLimited(created.retryAfterMs);
      return created.result;
    }
    // `ctx.working` becomes MCP `notifications/progress` while the caller's request is open and it
    // asked for progress (basic/utilities/progress); once the call is a task, its statusMessage.
    const onWorking = progressNotifier(params._meta, ctx);
    if (support === 'forbidden' || !tasksOk) {
      const signal = AbortSignal.any([ctx.mcpReq.signal, AbortSignal.timeout(options.requestTimeoutMs)]);
      return toCallToolResult(tool.name, await run(tool, args, caller, signal, onWorking));
    }
    // The server decides (SEP-2663): a call that finishes within `taskAfterMs` answers at once,
    // one round trip; a longer one becomes a task the caller polls.
    const work = start();
    if (onWorking !== undefined) work.setReport(onWorking);
    const disconnect = () => work.controller.abort(new Error('caller went away'));
    ctx.mcpReq.signal.addEventListener('abort', disconnect, { once: true });
    try {
      const early = options.taskAfterMs > 0 ? await within(work.answer, options.taskAfterMs) : undefined;
      if (early !== undefined) return toCallToolResult(tool.name, early);
      const created = await createTask(caller, tool, () => work);
      if (created.ok) return created.result;
      // No room for a task: the caller waits for the answer like a plain call (nothing lost).
      const timeout = within(work.answer, options.requestTimeoutMs);
      const answer = await timeout;
      if (answer === undefined) {
        work.controller.abort(new Error('timeout'));
        throw rateLimited(created.retryAfterMs);
      }
      return toCallToolResult(tool.name, answer);
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', disconnect);
    }
  };

  const findTask = async (ctx: ServerContext, taskId: string) => {
    const owner = mcpTaskOwner(callerOf(ctx).principal);
    const task = await store.get(owner, taskId);
    // Another principal's task, or an AdCP/A2A task, is simply not found (no oracle).
    if (task === undefined || task.kind !== 'mcp') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);
    }
    return { owner, task };
  };

  const factory = () => {
    const server = new Server(
      { name: options.name, version: options.version },
      { capabilities: { tools: { listChanged: false }, extensions: { [MCP_TASKS_EXTENSION]: {} } } },
    );
    server.setRequestHandler('tools/list', () => ({ tools: toolList() as never }));
    server.setRequestHandler('tools/call', (request, ctx) => callTool(request.params, ctx) as never);
    server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
      const { task } = await findTask(ctx, params.taskId);
      return { resultType: 'complete', ...toModernTask(task) };
    });
    // No AdCP tool asks for input inside a task: a known task's update is acknowledged and its
    // responses ignored (SEP-2663: keys that are not outstanding are ignored).
    server.setRequestHandler('tasks/update', { params: TaskIdParams }, async (params, ctx) => {
      await findTask(ctx, params.taskId);
      return { resultType: 'complete' };
    });
    // Cooperative cancellation: acknowledged even when the task already ended.
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
      const { owner } = await findTask(ctx, params.taskId);
      const outcome = await store.cancel(owner, params.taskId);
      if (outcome.ok) taskWork.abort(params.taskId);
      return { resultType: 'complete' };
    });
    return server;
  };

  const handler = createMcpHandler(factory, {
    legacy: 'reject',
    responseMode: 'auto',
    maxRequestBodySize: options.maxBodyBytes,
  });

  return {
    async handle(req, res, body, principal) {
      const caller: Caller = { principal, headers: req.headers };
      const authInfo: AuthInfo = { token: '', clientId: principal, scopes: [], extra: { adcpCaller: caller } };
      const serve = toNodeHandler({ fetch: (request) => handler.fetch(request, { authInfo, parsedBody: body }) });
      await serve(req as Parameters<typeof serve>[0], res, body);
    },
    close: () => handler.close(),
  };
}
