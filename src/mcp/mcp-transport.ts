import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type {
  AdcpTransport,
  CardInfo,
  McpServerFacts,
  ToolInfo,
  TransportCallOptions,
  TransportOptions,
} from '../transport/transport.js';
import { untilAborted } from '../transport/until-aborted.js';
import type { NodeHttpFetch } from '../transport/node-http-fetch.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { EraProbe } from './mcp-era.js';
import { checkMcpUrl, mcpFetch, probeEra, type McpStart } from './mcp-start.js';
import { ModernMcpTransport } from './modern-transport.js';
import { readCardOf } from './read-server-card.js';

type LegacyModule = typeof import('./legacy/legacy-transport.js');

/**
 * The MCP side of AdcpClient: learns the agent's MCP era once (pinned by `mcpEra`, or probed with
 * `server/discover`) and hands every use to that era's transport: `ModernMcpTransport`
 * (2026-07-28, no SDK) or `LegacyMcpTransport` (the 2025 era on the MCP SDK 1.x, in
 * `./legacy/`, loaded only when the era may be the 2025 one). Agent answers (errors included)
 * come back as TaskResults; failures to talk or read throw `AdcpWireError`.
 */
export class McpTransport implements AdcpTransport {
  readonly protocol = 'mcp' as const;
  readonly url: string;
  readonly #options: TransportOptions;
  /** The era, learned once per transport (one agent) and remembered: no probe per call. */
  #era: Promise<EraProbe> | undefined;
  /** The probe sent ahead of this transport (`startMcp`) until a use has awaited it. */
  #unseen: Promise<EraProbe> | undefined;
  /** The era's transport once the era is known, read without waiting. */
  #current: AdcpTransport | undefined;
  #modern: ModernMcpTransport | undefined;
  /** The 2025-era module (with the MCP SDK 1.x), loading from construction unless the era is pinned modern. */
  #legacyModule: Promise<LegacyModule> | undefined;
  #legacy: Promise<AdcpTransport> | undefined;
  #closed = false;
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
    const pinned = options.mcpEra ?? 'auto';
    if (pinned !== 'modern') {
      // Loaded while the probe is out (the servers buyers meet today are mostly 2025-era ones).
      this.#legacyModule = import('./legacy/legacy-transport.js');
      this.#legacyModule.catch(() => undefined);
    }
    if (pinned !== 'auto') this.#era = Promise.resolve({ era: pinned });
    else if (start?.era !== undefined) {
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

  /**
   * Calls `tool` on the era's transport. `returnImmediately` is ignored (an MCP call waits for its
   * answer); `continueTask` is refused with a TypeError: MCP has no way to answer an
   * `input-required` task with a new call.
   */
  async callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult> {
    if (options.continueTask !== undefined) {
      throw new TypeError(`callTool(${tool}): continueTask is A2A only; ${this.url} is an MCP agent`);
    }
    return (this.#current ?? (await this.#transport(options))).callTool(tool, args, options);
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    const transport = this.#current ?? (await this.#transport(options));
    return (transport.getTask as NonNullable<AdcpTransport['getTask']>).call(transport, taskId, options);
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    const transport = this.#current ?? (await this.#transport(options));
    return (transport.cancelTask as NonNullable<AdcpTransport['cancelTask']>).call(transport, taskId, options);
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    return (this.#current ?? (await this.#transport(options))).listTools(options);
  }

  /** The server card: the same on both eras, read without learning the era. */
  readCard(options: TransportCallOptions): Promise<CardInfo> {
    return readCardOf({ ...this.#options, fetch: this.#fetch }, options);
  }

  /** The agent's era and what its server says of itself (`server/discover`, or `initialize`). */
  async mcpServer(options: TransportCallOptions): Promise<McpServerFacts> {
    const transport = this.#current ?? (await this.#transport(options));
    return (transport.mcpServer as NonNullable<AdcpTransport['mcpServer']>).call(transport, options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#current = undefined;
    try {
      const legacy = this.#legacy;
      if (legacy !== undefined) await (await legacy.catch(() => undefined))?.close();
    } finally {
      this.#http?.close();
    }
  }

  /** The transport of the agent's era (learning the era first when it is not known yet). */
  async #transport(options: TransportCallOptions): Promise<AdcpTransport> {
    if (this.#closed) throw new AdcpWireError('aborted', `the MCP client for ${this.url} is closed`);
    const probe = await this.era(options);
    if (probe.era === 'modern') {
      this.#modern ??= new ModernMcpTransport({
        url: this.url,
        fetch: this.#fetch,
        ...(this.#options.headers === undefined ? {} : { headers: this.#options.headers }),
        ...(probe.discover === undefined ? {} : { discover: probe.discover }),
      });
      if (this.#era !== undefined) this.#current = this.#modern;
      return this.#modern;
    }
    this.#legacy ??= (this.#legacyModule ??= import('./legacy/legacy-transport.js')).then(
      ({ LegacyMcpTransport }) =>
        new LegacyMcpTransport({
          url: this.url,
          fetch: this.#fetch,
          maxBytes: this.#options.maxBytes,
          ...(this.#options.headers === undefined ? {} : { headers: this.#options.headers }),
        }),
    );
    const legacy = await untilAborted(this.#legacy, options.signal);
    if (this.#era !== undefined) this.#current = legacy;
    return legacy;
  }

  /** Keeps `probing` as the era until it fails (unless kept for a first use). */
  #remember(probing: Promise<EraProbe>, { keepFailure = false } = {}): Promise<EraProbe> {
    this.#era = probing;
    if (keepFailure) this.#unseen = probing;
    probing.catch(() => {
      if (!keepFailure) this.#forget(probing);
    });
    return probing;
  }

  #forget(probing: Promise<EraProbe>): void {
    if (this.#era === probing) this.#era = undefined;
  }
}
