import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListToolsResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { TaskResult } from '../../core/task-result.js';
import { taskResultFromMcp } from '../../core/task-result-from-mcp.js';
import type { JsonObject } from '../../core/types.js';
import { AdcpWireError } from '../../core/wire-error.js';
import { sanitizeSellerText } from '../../core/sanitize.js';
import { utf8ByteLength } from '../../core/json.js';
import type {
  AdcpTransport,
  CardInfo,
  McpServerFacts,
  ProgressEvent,
  ToolInfo,
  TransportCallOptions,
} from '../../transport/transport.js';
import { untilAborted } from '../../transport/until-aborted.js';
import {
  MAX_TOOL_PAGES,
  fromBareTask,
  fromRpcError,
  refuseForbiddenTask,
  resultOptions,
  toToolInfo,
  type AnswerContext,
} from '../mcp-answers.js';
import { mapMcpTaskStatus } from '../map-task-status.js';
import { factsFromInitialize } from '../mcp-server-facts.js';
import { readCardOf } from '../read-server-card.js';
import { cancelMcpTask, followMcpTask, getMcpTask, type McpTaskOutcome } from './follow-mcp-task.js';
import { McpSession } from './mcp-session.js';
import { NO_SDK_TIMEOUT, sendRequest, type SendOptions } from './send-request.js';

export interface LegacyTransportOptions extends AnswerContext {
  fetch: typeof fetch;
  /** Cap for answers that belong to no call (initialize, GET streams). */
  maxBytes: number;
}

/**
 * The MCP transport of the 2025 era, on the MCP SDK 1.x: one SDK session per transport
 * (Streamable HTTP, then the older HTTP+SSE), calls capped in bytes while they stream, MCP Tasks
 * when the caller asks (`task`) or the tool requires them. Everything in this folder exists
 * only for this era and this SDK: removing the era removes the folder.
 */
export class LegacyMcpTransport implements AdcpTransport {
  readonly protocol = 'mcp' as const;
  readonly url: string;
  readonly #options: LegacyTransportOptions;
  readonly #session: McpSession;
  #tools: Promise<Map<string, ToolInfo>> | undefined;
  /** Set once the tool list is known to hold no `taskSupport: required` tool. */
  #noRequiredTools = false;

  constructor(options: LegacyTransportOptions) {
    this.url = options.url;
    this.#options = options;
    const session: ConstructorParameters<typeof McpSession>[0] = {
      url: options.url,
      maxBytes: options.maxBytes,
      fetch: options.fetch,
    };
    if (options.headers !== undefined) session.headers = options.headers;
    this.#session = new McpSession(session);
  }

  /** Calls `tool`, task-augmented when asked or required. */
  async callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    try {
      const ttl = this.#plainForSure(options) ? undefined : await this.#taskTtl(tool, options);
      if (ttl === undefined) return await this.#callPlain(tool, args, options);
      return await this.#callAsTask(tool, args, ttl, options);
    } catch (error) {
      return fromRpcError(error, tool, this.#options);
    }
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      const task = await getMcpTask(this.#session, taskId, this.#send(options));
      if (task.status !== 'completed' && task.status !== 'failed') return this.#outcome({ task }, options);
      return this.#outcome(await followMcpTask(task, this.#follow(options)), options);
    } catch (error) {
      return fromRpcError(error, 'tasks/get', this.#options);
    }
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      return this.#outcome({ task: await cancelMcpTask(this.#session, taskId, this.#send(options)) }, options);
    } catch (error) {
      return fromRpcError(error, 'tasks/cancel', this.#options);
    }
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const listed = await sendRequest(this.#session, { ...this.#request(options), what: 'tools/list' }, (client, s) =>
        client.request({ method: 'tools/list', params }, ListToolsResultSchema, {
          signal: s,
          timeout: NO_SDK_TIMEOUT,
        }),
      );
      for (const tool of listed.tools) tools.push(toToolInfo(tool));
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    this.#tools = Promise.resolve(new Map(tools.map((t) => [t.name, t])));
    this.#noRequiredTools = !tools.some((t) => t.taskSupport === 'required');
    return tools;
  }

  readCard(options: TransportCallOptions): Promise<CardInfo> {
    return readCardOf(this.#options, options);
  }

  /** What its server said of itself in its `initialize` answer (opening the session when none is open). */
  async mcpServer(options: TransportCallOptions): Promise<McpServerFacts> {
    const connection = await untilAborted(this.#session.connect(), options.signal);
    const { transport } = connection;
    return factsFromInitialize({
      capabilities: connection.client.getServerCapabilities(),
      serverInfo: connection.client.getServerVersion(),
      protocolVersion: 'protocolVersion' in transport ? (transport.protocolVersion as string | undefined) : undefined,
      wire: connection.wire,
    });
  }

  close(): Promise<void> {
    return this.#session.close();
  }

  /** True when, without waiting, the call is known to be plain: connected to a server without tasks. */
  #plainForSure(options: TransportCallOptions): boolean {
    const current = this.#session.current;
    if (current === undefined) return false;
    const tasks = current.client.getServerCapabilities()?.tasks?.requests?.tools?.call;
    return tasks === undefined || (options.task === undefined && this.#noRequiredTools);
  }

  /** The `ttl` to augment with, or `undefined` for a plain call (see the MCP guide, "Tool-Level Task Support"). */
  async #taskTtl(tool: string, options: TransportCallOptions): Promise<number | undefined | null> {
    const connection = await untilAborted(this.#session.connect(), options.signal);
    const capabilities = connection.client.getServerCapabilities();
    if (capabilities?.tasks?.requests?.tools?.call === undefined) return undefined;
    const info = (await this.#knownTools(options)).get(tool);
    if (options.task !== undefined) {
      // A listed tool without `taskSupport` forbids tasks (MCP tools, "execution.taskSupport").
      refuseForbiddenTask(tool, info);
      return options.task.ttl ?? null;
    }
    return info?.taskSupport === 'required' ? null : undefined;
  }

  /** The tool list, read once per transport, for `taskSupport: required`; a failure reads as "none known". */
  #knownTools(options: TransportCallOptions): Promise<Map<string, ToolInfo>> {
    if (this.#tools === undefined) {
      const listing = this.listTools(options).then(
        (tools) => new Map(tools.map((t) => [t.name, t])),
        () => {
          this.#tools = undefined; // read again next time
          return new Map<string, ToolInfo>();
        },
      );
      this.#tools = listing;
    }
    return this.#tools;
  }

  async #callPlain(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    const onProgress = options.onProgress;
    const raw = await sendRequest(this.#session, { ...this.#request(options), what: tool }, (client, signal) => {
      const request: RequestOptions = { signal, timeout: NO_SDK_TIMEOUT };
      if (onProgress !== undefined) request.onprogress = (p) => onProgress(progressEvent(p));
      return client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        CallToolResultSchema,
        request,
      );
    });
    this.#checkLegacySize(raw, options.maxBytes, tool);
    return taskResultFromMcp(raw, resultOptions(this.#options, options.maxBytes));
  }

  /**
   * On the legacy HTTP+SSE transport answers share one stream, capped at the transport's limit
   * while reading; a smaller per-call cap can only be checked once the answer is parsed.
   */
  #checkLegacySize(raw: unknown, maxBytes: number, tool: string): void {
    if (this.#session.wire !== 'sse' || maxBytes >= this.#options.maxBytes) return;
    const size = utf8ByteLength(JSON.stringify(raw));
    if (size <= maxBytes) return;
    throw new AdcpWireError(
      'response_too_large',
      `${tool} at ${this.#options.url}: answer of ${size} bytes is over ${maxBytes}`,
      {
        tool,
        url: this.#options.url,
      },
    );
  }

  async #callAsTask(
    tool: string,
    args: JsonObject,
    ttl: number | null,
    options: TransportCallOptions,
  ): Promise<TaskResult> {
    const task = ttl === null ? {} : { ttl };
    const created = await sendRequest(this.#session, { ...this.#request(options), what: tool }, (client, signal) =>
      client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CreateTaskResultSchema, {
        signal,
        timeout: NO_SDK_TIMEOUT,
        task,
      }),
    );
    const status = mapMcpTaskStatus(created.task.status) ?? 'unknown';
    options.onProgress?.({ lifecycle: 'mcp', status, taskId: created.task.taskId });
    return this.#outcome(await followMcpTask(created.task, this.#follow(options)), options);
  }

  #outcome(outcome: McpTaskOutcome, options: TransportCallOptions): TaskResult {
    const { task, result } = outcome;
    if (result !== undefined)
      return taskResultFromMcp(result, {
        ...resultOptions(this.#options, options.maxBytes),
        transportTaskId: task.taskId,
      });
    return fromBareTask(task);
  }

  /** What one request needs: the call's deadline when there is one (no AbortSignal made), else its signal. */
  #request(options: TransportCallOptions): SendOptions {
    const send: SendOptions = { url: this.#options.url, maxBytes: options.maxBytes, what: '' };
    const end = options.deadline ?? options.signal;
    if (end !== undefined) send.signal = end;
    return send;
  }

  #send(options: TransportCallOptions): { url: string; maxBytes: number; signal?: AbortSignal } {
    const send: { url: string; maxBytes: number; signal?: AbortSignal } = {
      url: this.#options.url,
      maxBytes: options.maxBytes,
    };
    if (options.signal !== undefined) send.signal = options.signal;
    return send;
  }

  #follow(options: TransportCallOptions): Parameters<typeof followMcpTask>[1] {
    const follow: Parameters<typeof followMcpTask>[1] = { session: this.#session, ...this.#send(options) };
    if (options.onProgress !== undefined) follow.onProgress = options.onProgress;
    return follow;
  }
}

function progressEvent(p: {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}): ProgressEvent {
  const event: ProgressEvent = { lifecycle: 'mcp', status: 'working' };
  if (typeof p.total === 'number' && p.total > 0) event.percentage = Math.min(100, (p.progress / p.total) * 100);
  const message = sanitizeSellerText(p.message);
  if (message !== undefined) event.message = message;
  return event;
}
