import type { TaskResult } from '../core/task-result.js';
import { taskResultFromMcp } from '../core/task-result-from-mcp.js';
import type { JsonObject } from '../core/types.js';
import { AdcpWireError } from '../core/wire-error.js';
import type {
  AdcpTransport,
  CardInfo,
  McpServerFacts,
  ToolInfo,
  TransportCallOptions,
} from '../transport/transport.js';
import {
  MAX_TOOL_PAGES,
  fromBareTask,
  fromRpcError,
  refuseForbiddenTask,
  resultOptions,
  toToolInfo,
  type AnswerContext,
} from './mcp-answers.js';
import { factsFromDiscover } from './mcp-server-facts.js';
import { ModernMcp, type ModernOutcome } from './modern-mcp.js';
import { readCardOf } from './read-server-card.js';

export interface ModernTransportOptions extends AnswerContext {
  fetch: typeof fetch;
  /** The `server/discover` answer of the era probe, when the era was probed. */
  discover?: JsonObject;
}

/**
 * The MCP transport of the 2026-07-28 era: stateless, one POST per request (`ModernMcp`), no MCP
 * SDK. The server decides when a call becomes a task (the Tasks extension); a `task` asked of a
 * tool whose listing forbids tasks is still the caller's mistake, said before anything is sent.
 */
export class ModernMcpTransport implements AdcpTransport {
  readonly protocol = 'mcp' as const;
  readonly url: string;
  readonly #options: ModernTransportOptions;
  readonly #mcp: ModernMcp;
  #tools: Promise<Map<string, ToolInfo>> | undefined;

  constructor(options: ModernTransportOptions) {
    this.url = options.url;
    this.#options = options;
    this.#mcp = new ModernMcp({
      url: options.url,
      fetch: options.fetch,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
  }

  async callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    try {
      if (options.task !== undefined) refuseForbiddenTask(tool, (await this.#knownTools(options)).get(tool));
      return this.#result(await this.#mcp.callTool(tool, args, options), options);
    } catch (error) {
      return fromRpcError(error, tool, this.#options);
    }
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      return this.#result(await this.#mcp.getTask(taskId, options), options);
    } catch (error) {
      return fromRpcError(error, 'tasks/get', this.#options);
    }
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    try {
      return this.#result(await this.#mcp.cancelTask(taskId, options), options);
    } catch (error) {
      return fromRpcError(error, 'tasks/cancel', this.#options);
    }
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const answer = await this.#mcp.post('tools/list', cursor === undefined ? {} : { cursor }, options);
      if (!Array.isArray(answer.tools)) {
        throw new AdcpWireError('protocol', `tools/list at ${this.url}: the answer has no tools array`, {
          url: this.url,
        });
      }
      for (const tool of answer.tools) {
        if (tool !== null && typeof tool === 'object' && typeof (tool as JsonObject).name === 'string')
          tools.push(toToolInfo(tool as JsonObject & { name: string }, true));
      }
      cursor = typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    this.#tools = Promise.resolve(new Map(tools.map((t) => [t.name, t])));
    return tools;
  }

  readCard(options: TransportCallOptions): Promise<CardInfo> {
    return readCardOf(this.#options, options);
  }

  /** Its `server/discover` answer: the probe's, or asked now (the era was pinned, so none was probed). */
  async mcpServer(options: TransportCallOptions): Promise<McpServerFacts> {
    return factsFromDiscover(this.#options.discover ?? (await this.#mcp.post('server/discover', {}, options)));
  }

  async close(): Promise<void> {
    // Stateless: no session to end.
  }

  /** The tool list, read once per transport; a failure reads as "none known". */
  #knownTools(options: TransportCallOptions): Promise<Map<string, ToolInfo>> {
    this.#tools ??= this.listTools(options).then(
      (tools) => new Map(tools.map((t) => [t.name, t])),
      () => {
        this.#tools = undefined; // read again next time
        return new Map<string, ToolInfo>();
      },
    );
    return this.#tools;
  }

  #result(outcome: ModernOutcome, options: TransportCallOptions): TaskResult {
    const { task, result } = outcome;
    if (result === undefined) return fromBareTask(task as NonNullable<typeof task>);
    const read = resultOptions(this.#options, options.maxBytes);
    return taskResultFromMcp(result, task === undefined ? read : { ...read, transportTaskId: task.taskId });
  }
}
