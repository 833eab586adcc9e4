import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ListToolsResultSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { TaskResult } from '../core/task-result.js';
import { taskResultFromMcp, type TaskResultFromMcpOptions } from '../core/task-result-from-mcp.js';
import { taskResultFromJsonRpcError } from '../core/task-result-from-json-rpc.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import { utf8ByteLength } from '../core/json.js';
import type {
  AdcpTransport,
  CardInfo,
  McpServerFacts,
  ProgressEvent,
  ToolInfo,
  TransportCallOptions,
  TransportOptions,
} from '../transport/transport.js';
import { untilAborted } from '../transport/until-aborted.js';
import { cancelMcpTask, followMcpTask, getMcpTask, type McpTaskOutcome } from './follow-mcp-task.js';
import { mapMcpTaskStatus } from './map-task-status.js';
import { factsFromDiscover, factsFromInitialize } from './mcp-server-facts.js';
import { McpSession } from './mcp-session.js';
import { factsOf } from '../core/tool-table.js';
import type { EraProbe, McpEra } from './mcp-era.js';
import { checkMcpUrl, mcpFetch, probeEra, type McpStart } from './mcp-start.js';
import { ModernMcp, type ModernOutcome } from './modern-mcp.js';
import { RpcErrorAnswer } from './rpc-error-answer.js';
import { readServerCard } from './read-server-card.js';
import { NO_SDK_TIMEOUT, sendRequest, type SendOptions } from './send-request.js';
import type { NodeHttpFetch } from '../transport/node-http-fetch.js';

/** Pages of `tools/list` read at most (a hostile server could paginate forever). */
const MAX_TOOL_PAGES = 20;

/**
 * The MCP side of AdcpClient: one SDK client and session per transport, calls capped in bytes
 * while they stream, MCP Tasks when the caller asks (`task`) or the tool requires them, and the
 * server card. Agent answers (errors included) come back as TaskResults; failures to talk or
 * read throw `AdcpWireError`.
 */
export class McpTransport implements AdcpTransport {
  readonly protocol = 'mcp' as const;
  readonly url: string;
  readonly #options: TransportOptions;
  readonly #session: McpSession;
  #tools: Promise<Map<string, ToolInfo>> | undefined;
  /** Set once the tool list is known to hold no `taskSupport: required` tool. */
  #noRequiredTools = false;
  readonly #modern: ModernMcp;
  /** The era, learned once per transport (one agent) and remembered: no probe per call. */
  #era: Promise<EraProbe> | undefined;
  /** The probe sent ahead of this transport (`startMcp`) until a use has awaited it. */
  #unseen: Promise<EraProbe> | undefined;
  /** `#era` once it has resolved, read without waiting (or listening to the call's signal). */
  #eraKnown: McpEra | undefined;
  /**
   * Every request's fetch: the user's, or the transport's own over `node:http` (`#http`) while the
   * global fetch is Node's own and sends as by default (else the global fetch).
   */
  readonly #fetch: typeof fetch;
  /** The fetch over `node:http` when the user gave none: its keep-alive sockets end with close(). */
  readonly #http: NodeHttpFetch | undefined;

  /**
   * `start`: the fetch and the era probe `startMcp` sent ahead (AdcpClient's path, so the probe's
   * round trip overlaps the SDK's load); without it the probe goes out on the first call that
   * needs the era.
   */
  constructor(options: TransportOptions, start?: McpStart) {
    checkMcpUrl(options.url);
    this.url = options.url;
    this.#options = options;
    const { fetch: fetcher, http } = start ?? mcpFetch(options);
    this.#http = http;
    this.#fetch = fetcher;
    const session: ConstructorParameters<typeof McpSession>[0] = {
      url: options.url,
      maxBytes: options.maxBytes,
      fetch: this.#fetch,
    };
    if (options.headers !== undefined) session.headers = options.headers;
    this.#session = new McpSession(session);
    this.#modern = new ModernMcp({
      url: options.url,
      fetch: this.#fetch,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
    const pinned = options.mcpEra ?? 'auto';
    if (pinned !== 'auto') {
      this.#era = Promise.resolve({ era: pinned });
      this.#eraKnown = pinned;
    } else if (start?.era !== undefined) {
      // Sent before any call: if it fails, the first use reports that failure (no second probe).
      void this.#remember(start.era, { keepFailure: true });
    }
  }

  /**
   * The agent's MCP era (and its `server/discover` answer when modern): pinned by `mcpEra`, or
   * probed once with `server/discover` and remembered (basic-versioning.md: the era is a property
   * of the server). A probe that failed to reach the agent is forgotten once a use has seen it
   * fail, so the next use probes again.
   */
  era(options: Pick<TransportCallOptions, 'signal'> = {}): Promise<EraProbe> {
    const probing = this.#era ?? this.#remember(probeEra(this.#options, this.#fetch));
    if (this.#unseen === probing) {
      this.#unseen = undefined;
      probing.catch(() => this.#forget(probing));
    }
    return untilAborted(probing, options.signal);
  }

  /** Keeps `probing` as the era: its answer once it has one; a failure is forgotten (unless kept for a first use). */
  #remember(probing: Promise<EraProbe>, { keepFailure = false } = {}): Promise<EraProbe> {
    this.#era = probing;
    if (keepFailure) this.#unseen = probing;
    probing.then(
      (probe) => {
        if (this.#era === probing) this.#eraKnown = probe.era;
      },
      () => {
        if (!keepFailure) this.#forget(probing);
      },
    );
    return probing;
  }

  #forget(probing: Promise<EraProbe>): void {
    if (this.#era === probing) this.#era = undefined;
  }

  async #eraOf(options: TransportCallOptions): Promise<McpEra> {
    return this.#eraKnown ?? (await this.era(options)).era;
  }

  /**
   * Calls `tool`, task-augmented when asked or required. `returnImmediately` is ignored (an MCP
   * call waits for its answer); `continueTask` is refused with a TypeError: MCP has no way to
   * answer an `input-required` task with a new call.
   */
  async callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    if (options.continueTask !== undefined) {
      throw new TypeError(`callTool(${tool}): continueTask is A2A only; ${this.#options.url} is an MCP agent`);
    }
    try {
      if ((await this.#eraOf(options)) === 'modern') {
        // The server decides when a call becomes a task; a `task` asked of a tool whose listing
        // forbids tasks is still the caller's mistake, said before anything is sent.
        if (options.task !== undefined) await this.#refuseForbiddenTask(tool, options);
        return this.#modernResult(await this.#modern.callTool(tool, args, options), options);
      }
      const ttl = this.#plainForSure(options) ? undefined : await this.#taskTtl(tool, options);
      if (ttl === undefined) return await this.#callPlain(tool, args, options);
      return await this.#callAsTask(tool, args, ttl, options);
    } catch (error) {
      return this.#fromRpcError(error, tool);
    }
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      if ((await this.#eraOf(options)) === 'modern') {
        return this.#modernResult(await this.#modern.getTask(taskId, options), options);
      }
      const task = await getMcpTask(this.#session, taskId, this.#send(options));
      if (task.status !== 'completed' && task.status !== 'failed') return this.#outcome({ task }, options);
      return this.#outcome(await followMcpTask(task, this.#follow(options)), options);
    } catch (error) {
      return this.#fromRpcError(error, 'tasks/get');
    }
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      if ((await this.#eraOf(options)) === 'modern') {
        return this.#modernResult(await this.#modern.cancelTask(taskId, options), options);
      }
      return this.#outcome({ task: await cancelMcpTask(this.#session, taskId, this.#send(options)) }, options);
    } catch (error) {
      return this.#fromRpcError(error, 'tasks/cancel');
    }
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    const modern = (await this.#eraOf(options)) === 'modern';
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const listed = modern
        ? await this.#modernToolPage(params, options)
        : await sendRequest(this.#session, { ...this.#request(options), what: 'tools/list' }, (client, s) =>
            client.request({ method: 'tools/list', params }, ListToolsResultSchema, {
              signal: s,
              timeout: NO_SDK_TIMEOUT,
            }),
          );
      for (const tool of listed.tools) tools.push(toToolInfo(tool, modern));
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    this.#tools = Promise.resolve(new Map(tools.map((t) => [t.name, t])));
    this.#noRequiredTools = !tools.some((t) => t.taskSupport === 'required');
    return tools;
  }

  readCard(options: TransportCallOptions): Promise<CardInfo> {
    const read: Parameters<typeof readServerCard>[1] = { fetch: this.#fetch };
    if (this.#options.headers !== undefined) read.headers = this.#options.headers;
    if (options.signal !== undefined) read.signal = options.signal;
    return readServerCard(this.#options.url, read);
  }

  /**
   * The agent's era and what its server says of itself: the `server/discover` answer on the
   * modern era (asked now when the era was pinned, so none was probed), the `initialize` answer
   * on the 2025 era (opening the session when none is open).
   */
  async mcpServer(options: TransportCallOptions): Promise<McpServerFacts> {
    const probe = await this.era(options);
    if (probe.era === 'modern') {
      return factsFromDiscover(probe.discover ?? (await this.#modern.post('server/discover', {}, options)));
    }
    const connection = await untilAborted(this.#session.connect(), options.signal);
    const { transport } = connection;
    return factsFromInitialize({
      capabilities: connection.client.getServerCapabilities(),
      serverInfo: connection.client.getServerVersion(),
      protocolVersion: 'protocolVersion' in transport ? (transport.protocolVersion as string | undefined) : undefined,
      wire: connection.wire,
    });
  }

  async close(): Promise<void> {
    try {
      await this.#session.close();
    } finally {
      this.#http?.close();
    }
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
      if (info !== undefined && (info.taskSupport ?? 'forbidden') === 'forbidden') {
        throw new TypeError(
          `callTool(${tool}): ${tool} does not take MCP Tasks (its listing says taskSupport: forbidden); call it without task`,
        );
      }
      return options.task.ttl ?? null;
    }
    return info?.taskSupport === 'required' ? null : undefined;
  }

  async #refuseForbiddenTask(tool: string, options: TransportCallOptions): Promise<void> {
    const info = (await this.#knownTools(options)).get(tool);
    if (info !== undefined && (info.taskSupport ?? 'forbidden') === 'forbidden') {
      throw new TypeError(
        `callTool(${tool}): ${tool} does not take MCP Tasks (its listing says taskSupport: forbidden); call it without task`,
      );
    }
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
    return taskResultFromMcp(raw, this.#toResult(options.maxBytes));
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

  async #modernToolPage(params: JsonObject, options: TransportCallOptions) {
    const page = await this.#modern.post('tools/list', params, options);
    if (!Array.isArray(page.tools)) {
      throw new AdcpWireError('protocol', `tools/list at ${this.#options.url}: the answer has no tools array`, {
        url: this.#options.url,
      });
    }
    const tools = page.tools.filter(
      (tool): tool is JsonObject & { name: string } =>
        tool !== null && typeof tool === 'object' && typeof (tool as JsonObject).name === 'string',
    );
    return { tools, nextCursor: typeof page.nextCursor === 'string' ? page.nextCursor : undefined };
  }

  #modernResult(outcome: ModernOutcome, options: TransportCallOptions): TaskResult {
    const { task, result } = outcome;
    if (result !== undefined) {
      const read = this.#toResult(options.maxBytes);
      return taskResultFromMcp(result, task === undefined ? read : { ...read, transportTaskId: task.taskId });
    }
    return fromBareTask(task as unknown as Task);
  }

  #outcome(outcome: McpTaskOutcome, options: TransportCallOptions): TaskResult {
    const { task, result } = outcome;
    if (result !== undefined)
      return taskResultFromMcp(result, { ...this.#toResult(options.maxBytes), transportTaskId: task.taskId });
    return fromBareTask(task);
  }

  #fromRpcError(error: unknown, what: string): TaskResult {
    if (!(error instanceof RpcErrorAnswer)) throw error;
    const rpc = error.error;
    const result = taskResultFromJsonRpcError(rpc, { requestHadCredentials: this.#hasCredentials() });
    if (result !== null) return result;
    // SDK servers repeat their McpError's "MCP error <code>: " prefix on the wire: say it once.
    const message = sanitizeSellerText(rpc.message.replace(/^(MCP error -?\d+: )+/, ''), { maxLength: 200 }) ?? '';
    // Invalid params / method not found: the agent understood and said no (an unknown tool or
    // task, a task already finished): an answer, not a failure to talk.
    const refused = rpc.code === -32602 || rpc.code === -32601;
    throw new AdcpWireError(
      refused ? 'refused' : 'protocol',
      `${what} at ${this.#options.url}: ${refused ? 'refused: ' : ''}${message} (JSON-RPC error ${rpc.code})`,
      { cause: error, tool: what, url: this.#options.url },
    );
  }

  #toResult(maxBytes: number): TaskResultFromMcpOptions {
    return { maxBytes, requestHadCredentials: this.#hasCredentials() };
  }

  /** Whether requests carry credentials (`AUTH_REQUIRED` then means rejected, not missing). */
  #hasCredentials(): boolean {
    return Object.keys(this.#options.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
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

/** The TaskResult of an MCP Task that has no `CallToolResult` (input_required, cancelled, still working). */
function fromBareTask(task: Task): TaskResult {
  const base = { data: undefined, protocol: 'mcp' as const, raw: task, transportTaskId: task.taskId };
  const message = sanitizeSellerText(task.statusMessage);
  const withMessage = message === undefined ? base : { ...base, message };
  switch (mapMcpTaskStatus(task.status)) {
    case 'input-required':
      return { ...withMessage, status: 'input-required' };
    case 'canceled':
      return { ...withMessage, status: 'canceled' };
    case 'working':
      return { ...withMessage, status: 'working' };
    case 'submitted':
    case 'completed':
    case 'failed':
    case 'rejected':
    case 'auth-required':
    case null:
      throw new AdcpWireError('protocol', `MCP task ${task.taskId} has an unknown status`, {});
  }
}

/**
 * A listed tool. The 2026 era lists no `execution.taskSupport` (its tasks are server-directed):
 * there the AdCP tool table (the mcp-guide's "Tool-Level Task Support") says it for known tools.
 */
function toToolInfo(
  tool: {
    name: string;
    description?: string | undefined;
    inputSchema?: unknown;
    execution?: { taskSupport?: string | undefined } | undefined;
  },
  modern = false,
): ToolInfo {
  const info: ToolInfo = { name: tool.name };
  if (tool.description !== undefined) info.description = tool.description;
  if (tool.inputSchema !== null && typeof tool.inputSchema === 'object')
    info.inputSchema = tool.inputSchema as JsonObject;
  const support = tool.execution?.taskSupport ?? (modern ? factsOf(tool.name)?.taskSupport : undefined);
  if (support === 'forbidden' || support === 'optional' || support === 'required') info.taskSupport = support;
  return info;
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
