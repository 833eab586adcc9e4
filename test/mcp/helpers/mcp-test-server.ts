// A real @modelcontextprotocol/sdk server on 127.0.0.1 for the MCP and client tests: low-level
// `Server` so each test controls the tool list (inputSchema, execution.taskSupport) and the exact
// CallToolResult, Streamable HTTP (SSE or JSON answers) or the legacy HTTP+SSE transport, MCP
// Tasks through InMemoryTaskStore, optional server card, and a middleware hook in front.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';

export interface ToolContext {
  /** Headers of the HTTP request that carried the call. */
  headers: Record<string, string | string[] | undefined>;
  /** Sends `notifications/progress` when the caller asked for progress (a `progressToken`). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

export interface TestTool {
  name: string;
  taskSupport?: 'forbidden' | 'optional' | 'required';
  inputSchema?: Record<string, unknown>;
  /** Plain answer; throw McpError for a JSON-RPC error. */
  handler: (args: Record<string, unknown>, context: ToolContext) => Promise<CallToolResult> | CallToolResult;
  /** For task-augmented calls: how many `tasks/get` polls the task stays `working` (default 0). */
  taskPolls?: number;
}

export interface TestServerOptions {
  tools: TestTool[];
  /** `json`: Streamable HTTP with JSON answers; `sse`: Streamable HTTP with SSE answers (default); `legacy-sse`: the 2024-11-05 HTTP+SSE transport. */
  mode?: 'json' | 'sse' | 'legacy-sse';
  /** Declares the `tasks` capability with an InMemoryTaskStore. */
  tasks?: boolean;
  /** Poll interval put on created tasks, ms. */
  pollInterval?: number;
  /** Served at the given well-known path (raw body). */
  card?: { path: string; body: string; status?: number };
  /** Runs before the MCP transport; return true when it answered the request itself. */
  middleware?: (
    message: Record<string, unknown> | undefined,
    req: IncomingMessage,
    res: ServerResponse,
  ) => boolean | Promise<boolean>;
  /** Listen on this port (restart tests); 0 by default. */
  port?: number;
}

export interface TestServer {
  url: string;
  port: number;
  /** Every JSON-RPC request body received, in order. */
  received: Record<string, unknown>[];
  /** Headers of every MCP POST. */
  headers: Record<string, string | string[] | undefined>[];
  /** Legacy mode: ends every open SSE stream (and so every session), keeping the server up. */
  dropStreams(): Promise<void>;
  close(): Promise<void>;
}

/** The `isError` CallToolResult of an AdCP error: `adcp_error` in `structuredContent`, no text. */
export function adcpErrorAnswer(adcpError: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [], structuredContent: { adcp_error: adcpError } };
}

/** Starts a server; `url` is the MCP endpoint (`/mcp`, or `/sse` in legacy mode). */
export async function startMcpTestServer(options: TestServerOptions): Promise<TestServer> {
  const received: Record<string, unknown>[] = [];
  const headers: Record<string, string | string[] | undefined>[] = [];
  const mode = options.mode ?? 'sse';
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const legacy = new Map<string, SSEServerTransport>();
  const taskStore = options.tasks === true ? new InMemoryTaskStore() : undefined;

  const http: HttpServer = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  // As createAdcpServer.listen: Node's 5 s default closes a pooled socket under a client whose
  // event loop was held past it (a loaded machine), and a POST on it fails with ECONNRESET.
  http.keepAliveTimeout = 65_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (options.card !== undefined && path === options.card.path) {
      res.writeHead(options.card.status ?? 200, { 'content-type': 'application/json' }).end(options.card.body);
      return;
    }
    if (path.startsWith('/.well-known/')) {
      res.writeHead(404).end();
      return;
    }
    if (mode === 'legacy-sse') return handleLegacy(req, res, path);
    if (path !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (body !== undefined) {
      received.push(body);
      headers.push(req.headers);
    }
    await countTaskPoll(body);
    if ((await options.middleware?.(body, req, res)) === true) return;
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
    if (transport === undefined) {
      if (typeof sessionId === 'string' || body?.['method'] !== 'initialize') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: mode === 'json',
        onsessioninitialized: (id) => {
          streamable.set(id, created);
        },
      });
      transport = created;
      await buildServer(req).connect(created);
    }
    await transport.handleRequest(req, res, body);
  }

  async function handleLegacy(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method === 'GET' && path === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      legacy.set(transport.sessionId, transport);
      await buildServer(req).connect(transport);
      return;
    }
    if (req.method === 'POST' && path === '/messages') {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '';
      const body = await readJson(req);
      if (body !== undefined) received.push(body);
      headers.push(req.headers);
      const transport = legacy.get(id);
      if (transport === undefined) {
        res.writeHead(404).end();
        return;
      }
      await transport.handlePostMessage(req, res, body);
      return;
    }
    res.writeHead(405).end();
  }

  function buildServer(req: IncomingMessage): Server {
    const capabilities: Record<string, unknown> = { tools: {} };
    if (taskStore !== undefined) capabilities['tasks'] = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    const server = new Server(
      { name: 'adcp-test-agent', version: '1.0.0' },
      taskStore === undefined ? { capabilities } : { capabilities, taskStore },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: options.tools.map((tool) => ({
        name: tool.name,
        inputSchema: (tool.inputSchema ?? { type: 'object' }) as { type: 'object' },
        ...(tool.taskSupport === undefined ? {} : { execution: { taskSupport: tool.taskSupport } }),
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = options.tools.find((t) => t.name === request.params.name);
      if (tool === undefined) throw new McpError(-32602, `Unknown tool: ${request.params.name}`);
      const args = request.params.arguments ?? {};
      const token = request.params._meta?.progressToken;
      const context: ToolContext = {
        headers: req.headers,
        async progress(progress, total, message) {
          if (token === undefined) return;
          const params: Record<string, unknown> = { progressToken: token, progress };
          if (total !== undefined) params['total'] = total;
          if (message !== undefined) params['message'] = message;
          await extra.sendNotification({ method: 'notifications/progress', params });
        },
      };
      const taskField = request.params.task;
      if (taskField === undefined || extra.taskStore === undefined) {
        if (tool.taskSupport === 'required') throw new McpError(-32600, 'this tool requires task augmentation');
        return tool.handler(args, context);
      }
      const created = await extra.taskStore.createTask({
        ttl: taskField.ttl ?? 60_000,
        pollInterval: options.pollInterval ?? 50,
      });
      const store = extra.taskStore;
      let polls = tool.taskPolls ?? 0;
      const finish = async (): Promise<void> => {
        const result = await tool.handler(args, context);
        await store.storeTaskResult(created.taskId, result.isError === true ? 'failed' : 'completed', result);
      };
      if (polls === 0) await finish();
      else {
        // Finish after `taskPolls` reads of the task: count tasks/get requests for this id.
        pendingTasks.set(created.taskId, async () => {
          polls -= 1;
          if (polls === 0) await finish();
        });
      }
      return { task: await store.getTask(created.taskId) };
    });
    return server;
  }

  const pendingTasks = new Map<string, () => Promise<void>>();

  /** Counts a `tasks/get` poll of a task that finishes after N polls, before the SDK answers it. */
  async function countTaskPoll(message: Record<string, unknown> | undefined): Promise<void> {
    if (message?.['method'] !== 'tasks/get') return;
    const id = (message['params'] as { taskId?: string } | undefined)?.taskId;
    const step = id === undefined ? undefined : pendingTasks.get(id);
    if (step !== undefined) await step();
  }

  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const endpoint = mode === 'legacy-sse' ? '/sse' : '/mcp';
  return {
    url: `http://127.0.0.1:${port}${endpoint}`,
    port,
    received,
    headers,
    async dropStreams() {
      for (const t of legacy.values()) await t.close().catch(() => undefined);
      legacy.clear();
    },
    async close() {
      taskStore?.cleanup(); // its TTL timers would keep the process alive
      for (const t of streamable.values()) await t.close().catch(() => undefined);
      for (const t of legacy.values()) await t.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Runs `run` against a fresh server, then closes the server whether `run` passed or threw. */
export async function withMcpServer(
  options: TestServerOptions,
  run: (server: TestServer) => Promise<void>,
): Promise<void>;
/**
 * Runs `run` against a fresh server and what `open` makes for it (a transport, a client), then
 * closes both, that first, whether `run` passed or threw.
 */
export async function withMcpServer<T extends { close(): Promise<void> }>(
  options: TestServerOptions,
  open: (server: TestServer) => T,
  run: (opened: T, server: TestServer) => Promise<void>,
): Promise<void>;
export async function withMcpServer<T extends { close(): Promise<void> }>(
  options: TestServerOptions,
  first: ((server: TestServer) => Promise<void>) | ((server: TestServer) => T),
  run?: (opened: T, server: TestServer) => Promise<void>,
): Promise<void> {
  const server = await startMcpTestServer(options);
  try {
    if (run === undefined) return await (first as (server: TestServer) => Promise<void>)(server);
    const opened = (first as (server: TestServer) => T)(server);
    try {
      await run(opened, server);
    } finally {
      await opened.close();
    }
  } finally {
    await server.close();
  }
}

/**
 * A seller's two tools for an asynchronous buy: `create_media_buy` answers `submitted` with
 * `taskId`; `get_task_status` says `working` on the first poll and `completed` with `result` after.
 */
export function submitThenCompleteTools(
  taskId: string,
  result: Record<string, unknown>,
  taskType?: string,
): TestTool[] {
  let polls = 0;
  const typed = taskType === undefined ? {} : { task_type: taskType };
  return [
    {
      name: 'create_media_buy',
      handler: () => ({ content: [], structuredContent: { status: 'submitted', task_id: taskId } }),
    },
    {
      name: 'get_task_status',
      handler: () => {
        polls += 1;
        const status = polls < 2 ? { status: 'working' } : { status: 'completed', result };
        return { content: [], structuredContent: { task_id: taskId, ...typed, ...status } };
      },
    },
  ];
}
