import type { A2AWireChoice } from '../core/a2a-wire.js';
import type { AbortSource } from './deadline-signal.js';
import type { TaskSupport } from '../core/tool-table.js';
import type { JsonObject } from '../core/types.js';
import type { TaskResult } from '../core/task-result.js';
import type { ProfileCardCheck } from '../core/a2a-profile-card.js';
import type { A2AProfileViolation } from '../core/a2a-profile.js';

/**
 * What AdcpClient needs from a wire. `src/mcp/` and `src/a2a/` each provide one; the client adds
 * idempotency keys, retries and waiting on top. A transport throws AdcpWireError for "could not
 * talk or read", and returns a TaskResult for everything the agent said (errors included).
 */
export interface AdcpTransport {
  readonly protocol: 'mcp' | 'a2a';
  /** The agent URL it talks to; `new AdcpClient({ transport })` takes it as the client's `url`. */
  readonly url?: string;
  /** Calls one AdCP tool (MCP tool / A2A skill). `args` already holds `idempotency_key`/`context`. */
  callTool(tool: string, args: JsonObject, options: TransportCallOptions): Promise<TaskResult>;
  /**
   * Asks the transport for the current state of a transport-native task (A2A task id).
   * MCP has no such thing outside MCP Tasks, so it may leave this out.
   */
  getTask?(taskId: string, options: TransportCallOptions): Promise<TaskResult>;
  /** Cancels a transport-native task, when the wire has that. */
  cancelTask?(taskId: string, options: TransportCallOptions): Promise<TaskResult>;
  /** Lists the agent's tools or skills (name plus whatever the wire says about them). */
  listTools(options: TransportCallOptions): Promise<ToolInfo[]>;
  /** Reads the agent's card(s); a missing card is `undefined`, a bad one a reported problem. */
  readCard(options: TransportCallOptions): Promise<CardInfo>;
  /** MCP only: the era the agent speaks and what its server says of itself (for `discover`). */
  mcpServer?(options: TransportCallOptions): Promise<McpServerFacts>;
  close(): Promise<void>;
}

/**
 * An MCP server as it describes itself: `server/discover` on 2026-07-28, the `initialize` answer
 * on the 2025 era. Names come from the server (capped in count and length, not sanitised).
 */
export interface McpServerFacts {
  /** `modern`: MCP 2026-07-28, stateless; `legacy`: the 2025 era (`initialize`, sessions). */
  era: 'modern' | 'legacy';
  /** The revision spoken with it: 2026-07-28, or the one `initialize` negotiated. */
  protocolVersion?: string;
  /** Modern era: the revisions its `server/discover` lists. */
  supportedVersions?: string[];
  /** Its self-reported `serverInfo` (for display only). */
  server?: { name: string; version?: string };
  /** Top-level capability names (`tools`, `resources`, the 2025 era's `tasks`, ...). */
  capabilities: string[];
  /** Extension identifiers it declares (`capabilities.extensions`), e.g. `io.modelcontextprotocol/tasks`. */
  extensions: string[];
  /** 2025 era: the HTTP transport in use (`streamable-http`, or the older `sse`). */
  wire?: 'streamable-http' | 'sse';
}

export interface TransportCallOptions {
  signal?: AbortSignal;
  /**
   * The same end as `signal`, for a transport that only needs to hear of it: AdcpClient passes
   * its call's deadline here and makes `signal` a getter that creates the AbortSignal on first
   * read (on Node 20 each costs tens of µs), so a transport that reads only this makes none.
   */
  deadline?: AbortSource;
  /** Response byte cap for this call (UTF-8 bytes, whole response, enforced while reading). */
  maxBytes: number;
  /** MCP Tasks augmentation (`params.task`), when asked or required. */
  task?: { ttl?: number };
  /** A2A conversation continuity. */
  contextId?: string;
  /**
   * A2A only: answer as soon as the agent has the task, without waiting for it to end (1.0
   * `returnImmediately`, v0.3 `blocking: false`); follow the `submitted`/`working` result with
   * `getTask`. A hint: an agent may still answer with the final state. MCP has no non-blocking
   * send and ignores it (its calls wait for the answer; MCP Tasks are asked for with `task`).
   */
  returnImmediately?: boolean;
  /**
   * A2A only: continue this task, the `transportTaskId` of an `input-required` result (sent as
   * the message's `taskId`; pass the result's `contextId` too). MCP refuses it with a TypeError.
   */
  continueTask?: string;
  /** Streaming/progress events as they arrive (A2A streaming, MCP Tasks polling). */
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * Which task a progress event's `status` is about: the A2A Task (its own state, which may be
 * `completed` while the AdCP work in it is only `submitted`), the MCP request or MCP Task, or the
 * AdCP task (`task_id`, followed with `get_task_status`).
 */
export type ProgressLifecycle = 'a2a' | 'mcp' | 'adcp';

export interface ProgressEvent {
  /** Whose status this is: the transport's task (`a2a`, `mcp`) or the AdCP task (`adcp`). */
  lifecycle: ProgressLifecycle;
  status: TaskResult['status'] | 'unknown';
  taskId?: string;
  message?: string;
  percentage?: number;
  step?: string;
  data?: JsonObject;
}

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: JsonObject;
  /** MCP `execution.taskSupport`; A2A skills have none. */
  taskSupport?: TaskSupport;
}

export interface CardInfo {
  /** Where the card was found, or undefined when there is none. */
  url?: string;
  card?: JsonObject;
  /** A card that was there but malformed or oversized: reported, not thrown. */
  problem?: string;
  /**
   * A2A only: the card against the AdCP A2A profile's advertisement rules (extension under
   * `capabilities.extensions[]`, empty `params`, skill ids, `get_adcp_capabilities`): conformant,
   * or `{ ok: false, code, message }` naming the rule. Calls to its 1.0 interface are refused with
   * `profile_violation` when it is not ok; v0.3 interfaces are not held to it.
   */
  a2aProfile?: ProfileCardCheck | A2AProfileViolation;
}

/** What both transport factories take: `createMcpTransport(o)` (src/mcp) and `createA2ATransport(o)` (src/a2a). */
export interface TransportOptions {
  /** The agent URL (MCP endpoint, or A2A agent base URL / card URL). */
  url: string;
  /** Extra headers on every request (auth goes here as `authorization: Bearer ...`). */
  headers?: Record<string, string>;
  /**
   * Injected fetch (tests, proxies). Without it A2A uses the global fetch and MCP its own fetch
   * over `node:http`/`node:https` (`createNodeHttpFetch`: no WebAssembly HTTP parser to compile).
   */
  fetch?: typeof fetch;
  /**
   * Applied to the transport's default fetch when `fetch` is absent: AdcpClient's request signing
   * and trace propagation, which wrap whatever fetch the transport sends through.
   */
  wrapFetch?: (base: typeof fetch) => typeof fetch;
  /** Default response byte cap (UTF-8 bytes) when a call does not give one. */
  maxBytes: number;
  /** A2A only: pin the wire instead of choosing from the agent card. */
  a2aWire?: A2AWireChoice;
  /**
   * MCP only: the era to speak. `auto` (default) asks `server/discover` once and speaks
   * 2026-07-28 to a modern agent, the 2025 era (`initialize`, sessions) to the others;
   * `modern` or `legacy` pins one, without the probe.
   */
  mcpEra?: 'auto' | 'modern' | 'legacy';
  /** Origins besides `url`'s that `headers` may be sent to (an agent card may point elsewhere). */
  credentialOrigins?: readonly string[];
  /**
   * A2A only: follow an agent card to interfaces on private, loopback, link-local or metadata
   * addresses on another origin (local use). Default: refused (`unsafe_url`), credentials or not.
   */
  allowPrivateCardTargets?: boolean;
}
