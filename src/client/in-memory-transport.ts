import type { A2AWireChoice } from '../core/a2a-wire.js';
import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { InMemoryHandler } from '../transport/in-memory-fetch.js';
import type {
  AdcpTransport,
  CardInfo,
  McpServerFacts,
  ToolInfo,
  TransportCallOptions,
  TransportOptions,
} from '../transport/transport.js';
import { propagatingFetch } from '../telemetry/traced-fetch.js';
import { createTransport } from './create-transport.js';

export type { InMemoryHandler } from '../transport/in-memory-fetch.js';

export interface InMemoryTransportOptions {
  /** The wire to speak to the server: its MCP endpoint or its A2A interface. */
  protocol: 'mcp' | 'a2a';
  /**
   * The agent URL the client sees; its origin is the only one served. Default
   * `http://127.0.0.1/mcp` or `http://127.0.0.1/a2a` (the paths `createAdcpServer` serves; a
   * server with a `publicUrl` needs that origin here, since its cards name it).
   */
  url?: string;
  /** Headers on every request (`authorization` for a server with `authenticate`). */
  headers?: Record<string, string>;
  /** Default response byte cap; each call's own cap wins. Default 4 MiB. */
  maxResponseBytes?: number;
  /** A2A only: pin the wire instead of choosing from the agent card. */
  a2aWire?: A2AWireChoice;
  /** MCP only: pin the era (`modern` 2026-07-28, `legacy` 2025) instead of learning it (`auto`). */
  mcpEra?: 'auto' | 'modern' | 'legacy';
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** The in-memory fetch (and `node:http`, `node:stream`) loads on first use, not with `adcp-wire/client`. */
function lazyInMemoryFetch(server: InMemoryHandler, origin: string): typeof fetch {
  let inner: Promise<typeof fetch> | undefined;
  return async (input, init) => {
    inner ??= import('../transport/in-memory-fetch.js').then((m) => m.createInMemoryFetch(server, origin));
    return (await inner)(input, init);
  };
}

/**
 * An AdcpTransport to a server in this process, for tests and embedding: pass it to
 * `new AdcpClient({ transport })`. `server` is an `AdcpServer` (from `createAdcpServer`, not
 * listening) or any Node request listener. Requests travel as real MCP or A2A over HTTP/1.1 on
 * in-memory streams, so both sides run exactly as over a socket, without a port.
 */
export function createInMemoryTransport(server: InMemoryHandler, options: InMemoryTransportOptions): AdcpTransport {
  const handles =
    typeof server === 'function' ||
    (typeof server === 'object' && server !== null && typeof server.handle === 'function');
  if (!handles) {
    throw new TypeError('createInMemoryTransport: pass an AdcpServer (createAdcpServer) or a (req, res) listener');
  }
  if (options?.protocol !== 'mcp' && options?.protocol !== 'a2a') {
    throw new TypeError(`createInMemoryTransport: protocol must be 'mcp' or 'a2a', got ${String(options?.protocol)}`);
  }
  return new InMemoryTransport(server, options);
}

class InMemoryTransport implements AdcpTransport {
  readonly protocol: 'mcp' | 'a2a';
  readonly url: string;
  readonly #options: TransportOptions;
  #inner: Promise<AdcpTransport> | undefined;
  #closed = false;

  constructor(server: InMemoryHandler, options: InMemoryTransportOptions) {
    this.protocol = options.protocol;
    const url = options.url ?? `http://127.0.0.1/${options.protocol}`;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new TypeError(`createInMemoryTransport: url must be an absolute http(s) URL, got ${String(url)}`);
    }
    this.url = url;
    this.#options = {
      url,
      // W3C trace context like the network transports: the span active when a request is sent.
      fetch: propagatingFetch(lazyInMemoryFetch(server, new URL(url).origin)),
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_BYTES,
    };
    if (options.headers !== undefined) this.#options.headers = options.headers;
    if (options.a2aWire !== undefined) this.#options.a2aWire = options.a2aWire;
    if (options.mcpEra !== undefined) this.#options.mcpEra = options.mcpEra;
  }

  /** The real MCP or A2A transport over the in-memory fetch, made on first use (its SDK loads then). */
  #transport(): Promise<AdcpTransport> {
    if (this.#closed) return Promise.reject(new TypeError(`the in-memory transport to ${this.url} is closed`));
    this.#inner ??= createTransport(this.protocol, this.#options);
    return this.#inner;
  }

  async callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    return (await this.#transport()).callTool(tool, args, options);
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    const transport = await this.#transport();
    if (transport.getTask === undefined) throw new TypeError(`${this.protocol} has no transport tasks to read`);
    return transport.getTask(taskId, options);
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    const transport = await this.#transport();
    if (transport.cancelTask === undefined) throw new TypeError(`${this.protocol} has no task cancellation`);
    return transport.cancelTask(taskId, options);
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    return (await this.#transport()).listTools(options);
  }

  async readCard(options: TransportCallOptions): Promise<CardInfo> {
    return (await this.#transport()).readCard(options);
  }

  async mcpServer(options: TransportCallOptions): Promise<McpServerFacts> {
    const transport = await this.#transport();
    if (transport.mcpServer === undefined) throw new TypeError(`${this.protocol} has no MCP server to describe`);
    return transport.mcpServer(options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const inner = this.#inner;
    this.#inner = undefined;
    if (inner !== undefined) await (await inner).close();
  }
}
