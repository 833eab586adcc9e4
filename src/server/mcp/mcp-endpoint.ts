import { randomUUID } from 'node:crypto';
import { unknownToolData } from '../tools/tool-error.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { TaskStore } from '../../store/task-store.js';
import type { AdcpTaskRunner } from '../tasks/adcp-tasks.js';
import { invokeTool } from '../calls/invoke-tool.js';
import { toCallToolResult } from './mcp-call-result.js';
import { progressReporter } from './mcp-progress.js';
import { mcpToolList } from './mcp-tool-list.js';
import { startMcpWork, type McpTaskWork } from './mcp-task-work.js';
import { checkMcpRequest } from './mcp-request-check.js';
import { createSdkTaskStore, mcpTaskOwner, toMcpTask } from './mcp-task-store.js';
import { taskSupportFor } from '../../core/tool-table.js';
import type { AdcpServing } from '../tools/adcp-serving.js';
import type { AdcpToolDefinition, WorkingProgress } from '../types.js';

export interface McpEndpointOptions {
  tools: Map<string, AdcpToolDefinition>;
  store: TaskStore;
  runner: AdcpTaskRunner;
  /** Running MCP task work, shared with the modern era's endpoint. */
  taskWork: McpTaskWork;
  name: string;
  version: string;
  adcpVersion: string;
  serving?: AdcpServing;
  requestTimeoutMs: number;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  sessionIdleMs: number;
  /** Serve every request on its own, no session (CreateAdcpServerOptions.mcpSessions `stateless`). */
  stateless?: boolean;
  /** Publish `outputSchema` for AdCP tools (see CreateAdcpServerOptions). */
  outputSchemas?: boolean;
}

export interface McpEndpoint {
  /** Serves one request whose body has already been read and parsed (undefined for GET/DELETE). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: string): Promise<void>;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  principal: string;
  lastSeen: number;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** MCP over Streamable HTTP with sessions, MCP Tasks from the owner-scoped store. */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const sessions = new Map<string, Session>();
  const abortTask = (taskId: string) => options.taskWork.abort(taskId);
  // Built on the first tools/list (AdCP tools' discovery schemas are read from the schema tree).
  let listed: Tool[] | undefined;
  const toolList = (): Tool[] =>
    (listed ??= mcpToolList(options.tools, {
      release: options.serving?.defaultRelease ?? options.adcpVersion,
      outputSchemas: options.outputSchemas === true,
    }) as unknown as Tool[]);

  const runTool = (
    tool: AdcpToolDefinition,
    args: unknown,
    principal: string,
    headers: IncomingMessage['headers'],
    signal: AbortSignal,
    onWorking?: (message?: string, progress?: WorkingProgress) => void,
  ) =>
    invokeTool({
      tool,
      args,
      protocol: 'mcp',
      principal,
      headers,
      signal,
      runner: options.runner,
      adcpVersion: options.adcpVersion,
      ...(options.serving === undefined ? {} : { serving: options.serving }),
      ...(onWorking === undefined ? {} : { onWorking }),
    });

  const makeServer = (principal: string): Server => {
    const server = new Server(
      { name: options.name, version: options.version },
      {
        capabilities: {
          tools: { listChanged: false },
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: createSdkTaskStore(options.store, mcpTaskOwner(principal), abortTask),
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = options.tools.get(request.params.name);
      if (tool === undefined)
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`, unknownToolData('tool'));
      const support = taskSupportFor(tool.name, tool.taskSupport);
      const taskParams = request.params.task;
      if (taskParams !== undefined && support === 'forbidden') {
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} does not support task augmentation`);
      }
      if (taskParams === undefined && support === 'required') {
        throw new McpError(ErrorCode.MethodNotFound, `Tool ${tool.name} requires task augmentation`);
      }
      const headers = extra.requestInfo?.headers ?? {};
      const args = request.params.arguments ?? {};
      if (taskParams === undefined) {
        const signal = AbortSignal.any([extra.signal, AbortSignal.timeout(options.requestTimeoutMs)]);
        const progressToken = request.params._meta?.progressToken;
        // `ctx.working` becomes MCP `notifications/progress` when the caller asked for progress.
        const toParams = progressToken === undefined ? undefined : progressReporter(progressToken);
        const onWorking =
          toParams === undefined
            ? undefined
            : (message?: string, progress?: WorkingProgress) => {
                const params = toParams(message, progress);
                void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
              };
        return toCallToolResult(tool.name, await runTool(tool, args, principal, headers, signal, onWorking));
      }
      const owner = mcpTaskOwner(principal);
      const created = await options.store.create({
        owner,
        kind: 'mcp',
        taskType: tool.name,
        requestedTtlMs: typeof taskParams.ttl === 'number' ? taskParams.ttl : undefined,
      });
      if (!created.ok) {
        const retryAfter = Math.ceil(created.retryAfterMs / 1000);
        throw new McpError(-32029, 'Task creation rate limit exceeded', {
          adcp_error: {
            code: 'RATE_LIMITED',
            message: 'Too many tasks created; retry later.',
            recovery: 'transient',
            retry_after: retryAfter,
          },
        });
      }
      const task = created.task;
      const work = startMcpWork((signal, onWorking) => runTool(tool, args, principal, headers, signal, onWorking));
      options.taskWork.adopt(owner, task, tool.name, work);
      return { task: toMcpTask(task) };
    });
    return server;
  };

  const evictIdle = () => {
    const cutoff = Date.now() - options.sessionIdleMs;
    for (const [id, session] of sessions) {
      if (session.lastSeen < cutoff) {
        sessions.delete(id);
        void session.transport.close().catch(() => undefined);
      }
    }
  };
  const idleTimer = setInterval(evictIdle, Math.min(options.sessionIdleMs, 60_000));
  idleTimer.unref();

  const closeSession = (id: string, session: Session) => {
    sessions.delete(id);
    void session.transport.close().catch(() => undefined);
  };
  /** The least recently used session, of `principal` only when given. */
  const leastRecent = (principal?: string): [string, Session] | undefined => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (principal !== undefined && entry[1].principal !== principal) continue;
      if (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen) oldest = entry;
    }
    return oldest;
  };
  /**
   * Makes room for a new session of `principal`. Past its own cap, its own least recently used
   * session goes; past the global cap, the least recently used session of whoever holds the most.
   * A flood therefore evicts the flooder's sessions, never another principal's while the flooder
   * has more; and no eviction loses a task result (tasks belong to the principal).
   */
  const makeRoomFor = (principal: string) => {
    const counts = new Map<string, number>();
    for (const session of sessions.values()) counts.set(session.principal, (counts.get(session.principal) ?? 0) + 1);
    if ((counts.get(principal) ?? 0) >= options.maxSessionsPerPrincipal) {
      const own = leastRecent(principal);
      if (own !== undefined) closeSession(...own);
      return;
    }
    if (sessions.size < options.maxSessions) return;
    let heaviest = principal;
    for (const [who, count] of counts) if (count > (counts.get(heaviest) ?? 0)) heaviest = who;
    const victim = leastRecent(heaviest) ?? leastRecent();
    if (victim !== undefined) closeSession(...victim);
  };

  /**
   * One request, one server, no session: nothing of it outlives the answer, so any instance of a
   * fleet answers any request (tasks and their results are in the shared store). A session id a
   * caller sends is not checked: no instance issued one, and none has anything under it.
   */
  const serveStateless = async (req: IncomingMessage, res: ServerResponse, body: unknown, principal: string) => {
    if (req.method !== 'POST') {
      // No standalone stream (there is no session for it to belong to) and nothing to delete.
      res.setHeader('allow', 'POST');
      jsonRpcError(res, 405, ErrorCode.InvalidRequest, 'Method not allowed: this server is stateless (POST only)');
      return;
    }
    if (!isInitializeRequest(body)) {
      const invalid = checkMcpRequest(body);
      if (invalid !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(invalid));
        return;
      }
    }
    const server = makeServer(principal);
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: false });
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  return {
    async handle(req, res, body, principal) {
      if (options.stateless === true) return serveStateless(req, res, body, principal);
      const header = req.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      if (sessionId !== undefined) {
        const session = sessions.get(sessionId);
        // A session belongs to the principal that opened it: anyone else gets "not found".
        if (session === undefined || session.principal !== principal) {
          jsonRpcError(res, 404, -32001, 'Session not found');
          return;
        }
        session.lastSeen = Date.now();
        const invalid = checkMcpRequest(body);
        if (invalid !== undefined) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(invalid));
          return;
        }
        await session.transport.handleRequest(req, res, body);
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        jsonRpcError(res, 400, ErrorCode.InvalidRequest, 'Bad Request: no valid session; send initialize first');
        return;
      }
      makeRoomFor(principal);
      const server = makeServer(principal);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        // SSE answers (the SDK default), so `notifications/progress` can travel with the answer.
        enableJsonResponse: false,
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server, principal, lastSeen: Date.now() });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },

    async close() {
      clearInterval(idleTimer);
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((s) => s.server.close()));
    },
  };
}
