import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../core/types.js';
import type { IdempotencyStore } from '../store/idempotency-store.js';
import type { TaskStore } from '../store/task-store.js';
import type { TaskSupport } from '../core/tool-table.js';
import type { AdcpServingOptions } from './tools/adcp-serving.js';
import type { CapabilitiesOverride } from './tools/capabilities.js';
import type { InsertLimits } from './calls/insert-rate-limiter.js';
import type { ServerWebhookOptions } from './tasks/server-webhooks.js';
import type { RequestSigningServerOptions } from './auth/request-signing.js';
import type { AdcpAuthOptions } from './auth/auth-options.js';
import type { ActivityListener } from '../telemetry/activity.js';
import type { TestControllerOptions } from './tools/test-controller.js';
import type { OutboundReach } from '../core/outbound-url.js';
import type { WebhookChallengeOutcome } from '../webhooks/webhook-challenge.js';

/** MCP `execution.taskSupport` (mcp-guide, "Tool-Level Task Support"). */
export type { TaskSupport };

/** How far a call or task has got: `percentage` 0-100, `step` a short name (`current_step` on the wire). */
export interface WorkingProgress {
  percentage?: number;
  step?: string;
}

/** Reports progress of AdCP async work; each call may fire a `working` webhook. */
export interface AsyncProgress {
  working(message?: string, progress?: WorkingProgress): Promise<void>;
  /** Aborted when the AdCP task is cancelled or the server closes. */
  signal: AbortSignal;
}

/** Work that finishes an AdCP `submitted` task later: resolves to the final AdCP body. */
export type AsyncWork = (progress: AsyncProgress) => Promise<JsonObject>;

/** What a tool handler receives besides its arguments. */
/** How `ToolContext.submit` answers. */
export interface SubmitOptions {
  /** The `submitted` answer's message (and the task's status message). */
  message?: string;
  /**
   * The task id to answer with (a sandbox controller's deterministic `task_id`), at most 128
   * characters; when the store already holds a task of that id, a fresh one is used instead.
   */
  taskId?: string;
}

export interface ToolContext {
  /** Which wire the call came over. */
  protocol: 'mcp' | 'a2a';
  /** The authenticated principal (or `anonymous@<address>`): owner of the AdCP tasks this call creates. */
  principal: string;
  /** The HTTP request headers (lower-case names). */
  headers: IncomingMessage['headers'];
  /** Aborted when the request times out or the caller goes away. */
  signal: AbortSignal;
  /** The AdCP release this call is answered in (negotiated from its `adcp_version`, else the server's default). */
  adcpVersion: string;
  /**
   * Reports progress while the handler runs, before it answers. Over A2A each report is an
   * interim `working` status update (a stream sends it at once; `GetTask` shows the latest).
   * Over MCP it does nothing yet. Work that outlives the call reports through `submit`'s
   * `progress.working` instead (webhooks).
   */
  working(message?: string, progress?: WorkingProgress): Promise<void>;
  /**
   * Turns this call into an AdCP async task: stores it, runs `work` in the background
   * (`working` -> `completed`/`failed`, with webhooks to the caller's `push_notification_config`)
   * and returns the `submitted` body to answer with now (`{ status: 'submitted', task_id }`).
   */
  submit(work: AsyncWork, options?: SubmitOptions): Promise<JsonObject>;
  /** The server's webhook channel, for a handler that registers webhook subscribers of its own. */
  webhooks: ToolWebhooks;
}

/**
 * What a tool handler may ask of the server's webhook channel (`createAdcpServer({ webhooks })`):
 * account-level subscribers (the kit's `sync_accounts` `notification_configs`) are checked and
 * proven with the server's own rules and key.
 */
export interface ToolWebhooks {
  /**
   * What a buyer's webhook URL may reach (`checkOutboundUrl`): public https only unless the
   * server allows loopback (`webhooks.allowLoopbackUrls`) or any URL (`allowInsecureUrls`, tests).
   */
  readonly reach: OutboundReach;
  /**
   * Sends the account-level proof-of-control challenge (core/webhook-challenge.json) to `url`:
   * `fields` are the registration's (`account_id`, `subscriber_id`, `delivery_auth`,
   * `event_types`); the server adds `type`, a fresh `challenge` and `seller_agent_url` (its own
   * URL over the call's wire), signs it with its RFC 9421 webhook key, posts it once within
   * `webhooks.timeoutMs` (default 10 s) and says whether the receiver echoed the challenge.
   * `unavailable` when the server has no signing key or no URL of its own yet. The URL is checked
   * against `reach` again first; a refused one is never contacted.
   */
  challenge(url: string, fields: JsonObject): Promise<WebhookChallengeOutcome>;
}

/**
 * The AdCP body a handler answers with (envelope fields may be set; the server adds `status`
 * `completed` when absent, echoes `context` and `adcp_version`). A body with `adcp_error`
 * is an error answer; throwing AdcpToolError is the same.
 */
export type ToolAnswer = JsonObject;

/** One AdCP tool, defined once and served on MCP (tool) and A2A (skill). */
export interface AdcpToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments. Keep it open (`additionalProperties` not false): envelope fields ride along. */
  inputSchema?: JsonObject;
  /** Defaults to the mcp-guide table for known AdCP tools, else `forbidden`. */
  taskSupport?: TaskSupport;
  /** A2A skill tags. */
  tags?: string[];
  /** Which wires serve it. Default both. */
  protocols?: ('mcp' | 'a2a')[];
  /**
   * A call without `idempotency_key` is refused (`INVALID_REQUEST`). Default: what the AdCP schema
   * manifest says of a tool of this name (mutating, key required), `false` for other names.
   */
  mutating?: boolean;
  /**
   * Check the arguments against the release's request schema before the handler runs (default
   * true). `false` for a tool that answers bad arguments in its own vocabulary
   * (`comply_test_controller`: `UNKNOWN_SCENARIO`, `INVALID_PARAMS`); the version is still negotiated.
   */
  validateRequest?: boolean;
  handler(args: JsonObject, context: ToolContext): ToolAnswer | Promise<ToolAnswer>;
}

/** Sends one AdCP webhook to a `push_notification_config`; resolves when done (or given up). */
/** Sends one webhook; `signal` aborts when the server closes (give up: the server is stopping). */
export type WebhookSend = (
  config: JsonObject,
  payload: JsonObject,
  options?: { signal?: AbortSignal },
) => Promise<void>;

/**
 * Version negotiation and validation (`adcpVersions`, `adcpVersion`, `validateRequests`,
 * `validateResponses`, `onInvalidResponse`) come from AdcpServingOptions.
 */
export interface CreateAdcpServerOptions extends AdcpServingOptions {
  tools: AdcpToolDefinition[];
  /** Durable, owner-scoped task store. Defaults to one in memory (no database driver needed). */
  store?: TaskStore;
  /** Agent name and version (server card, agent card, MCP implementation info). */
  name?: string;
  version?: string;
  description?: string;
  /** Server card `_meta["adcontextprotocol.org"]` extras (`protocols_supported`, ...). */
  cardMeta?: JsonObject;
  /**
   * Maps a request to its principal, or `null` to refuse it with 401. The principal owns the AdCP,
   * A2A and MCP tasks it creates and has its own task rate limit and session cap. Default: a
   * caller is `anonymous@<address>` (IPv6 by /64): anonymous callers behind one address (a NAT,
   * a proxy) share tasks and limits; authenticate them to tell them apart.
   */
  authenticate?: (req: IncomingMessage) => string | null | Promise<string | null>;
  /**
   * Authentication: static bearer tokens and/or OAuth 2.1 access tokens mapped to principals
   * (see AdcpAuthOptions). Callers without credentials may call only the discovery tools; bad
   * credentials get 401 with `WWW-Authenticate`. With `oauth`, RFC 9728 metadata is served at
   * `/.well-known/oauth-protected-resource/mcp` (and `/a2a`). Not together with `authenticate`.
   */
  auth?: AdcpAuthOptions;
  /**
   * AdCP webhooks: the library's emitter (RFC 9421 with `signingKey`, or legacy HMAC when the
   * buyer's `push_notification_config.authentication.credentials` asks for it). Default: https
   * public destinations only, no signing key (so only HMAC registrations are accepted).
   */
  webhooks?: ServerWebhookOptions;
  /** Shorthand for `webhooks.send`: replaces delivery (tests, queues). */
  sendWebhook?: WebhookSend;
  /**
   * Verify RFC 9421 request signatures (security.md, "Signed Requests"): keys (`jwks`, `jwksUrl` or
   * `resolveKeys`), `requiredFor`, `coverContentDigest`, replay cache, revocation. A failed check is
   * answered 401 with `WWW-Authenticate: Signature error="<code>"`; a verified keyid becomes the
   * call's principal; `get_adcp_capabilities` advertises `request_signing`.
   */
  requestSigning?: RequestSigningServerOptions;
  /** Public keys served at `/.well-known/jwks.json` (the webhook signing key's public half). */
  publicJwks?: JsonObject;
  /**
   * The operator's brand.json (3.1 `brand.json`), served at `/.well-known/brand.json` without
   * credentials: the trust root a verifier reaches through `identity.brand_json_url` in
   * `get_adcp_capabilities` (set it there through `capabilities`), whose `agents[].jwks_uri`
   * names the keys this agent signs with (security.md, "Discovering an agent's signing keys").
   */
  brandJson?: JsonObject;
  /** Request body cap in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of objects/arrays accepted in a request body (security.md: 64). Deeper bodies
   * are refused before parsing with JSON-RPC -32600 on both transports. Default 64.
   */
  maxJsonDepth?: number;
  /** Per-request timeout in ms (a handler still running then gets an error answer). Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * How long `listen()` keeps an idle connection open, in ms (Node's own default is 5 s).
   * Default 65 s: longer than common load balancers' idle timeout (60 s), so the server never
   * closes a pooled connection under a proxy or client that is about to reuse it.
   */
  keepAliveTimeoutMs?: number;
  /**
   * The origin callers reach this server at (`https://seller.example`, behind a proxy or TLS
   * terminator): the agent card and server card list their URLs under it. Default: the listen
   * address (mounted with `handle()`: the local address of each connection). The `Host` header is
   * never used for it.
   */
  publicUrl?: string;
  /**
   * Host names accepted in `Host` (and `Origin`, when sent). Default: when listening on loopback,
   * only loopback names (DNS-rebinding protection); otherwise any.
   */
  allowedHosts?: string[];
  /**
   * How the 2025-era MCP (initialize, `Mcp-Session-Id`) is served. `memory` (default): sessions
   * in this process, so a load balancer must route each session back to it. `stateless`: no
   * session id is issued and every request is served on its own, so any instance of a fleet
   * serves any request (its tasks and idempotency keys must then be in a shared store); a GET
   * stream and DELETE answer 405, and notifications reach the caller only with the answer of
   * the request they belong to (docs/server.md, "MCP eras in a fleet"). The 2026-07-28 era is
   * stateless either way.
   */
  mcpSessions?: 'memory' | 'stateless';
  /**
   * Most concurrent MCP sessions kept. Past it, the least recently used session of the principal
   * holding the most is dropped (its tasks stay reachable from its next session). Default 1000.
   */
  maxSessions?: number;
  /** Most concurrent MCP sessions of one principal; its least recently used goes past it. Default 100. */
  maxSessionsPerPrincipal?: number;
  /** Idle MCP sessions are closed after this many ms. Default 30 min. */
  sessionIdleMs?: number;
  /**
   * MCP 2026-07-28: a call to a task-capable tool (`taskSupport` `optional`) from a client that
   * declared the Tasks extension becomes an MCP task when it is still running after this many
   * ms (0: at once); a quicker one answers directly. `required` tools always answer with a
   * task. Default 2000.
   */
  taskAfterMs?: number;
  /**
   * Publish each AdCP tool's `outputSchema` in MCP `tools/list` (the projection of the served
   * release's response schema). Default false: MCP SDK clients compile every listed
   * `outputSchema` when they list tools (seconds for the large AdCP responses) and check every
   * answer against it, errors included; the `inputSchema` is always published.
   */
  outputSchemas?: boolean;
  /**
   * Idempotency (security.md, "Idempotency"): every call that carries an `idempotency_key` runs
   * at most once per principal, key and payload within the replay window; a retry gets the stored
   * answer with `replayed: true`, another payload `IDEMPOTENCY_CONFLICT`. `store` defaults to
   * memory (it lives as long as the process: give a SQLite file, or PostgreSQL for a
   * fleet, as the spec requires a window that survives restarts); `replayTtlSeconds` defaults to
   * 86,400 (the spec allows 3,600 to 604,800).
   */
  idempotency?: {
    store?: IdempotencyStore;
    replayTtlSeconds?: number;
    /**
     * New keys a principal may create per second, as separate read and write budgets plus a
     * combined cap, each sustained over 60 s and in bursts over 10 s (security.md, rule 8). Past
     * them a keyed call gets `RATE_LIMITED` with `retry_after`, nothing stored. Default: the spec's
     * starting points (writes 60/300, reads 300/1,500, combined 350/1,700).
     */
    insertLimits?: InsertLimits;
  };
  /**
   * Fields of the generated `get_adcp_capabilities` answer to add or change (`account`,
   * `media_buy`, `specialisms`, `compliance_testing`, ...): an object merged into it, or a function
   * of it. The server fills in `adcp` (releases, idempotency), `supported_protocols` (from the
   * tools), `webhook_signing` and `request_signing` from its configuration.
   */
  capabilities?: CapabilitiesOverride;
  /**
   * Told of every tool invocation (a request event, then a response event with its status and
   * error code), without bodies or credentials (docs/telemetry.md); its throws are ignored.
   */
  onActivity?: ActivityListener;
  /**
   * Serve `comply_test_controller` (comply-test-controller.md) with these scenarios, and advertise
   * them as `compliance_testing` in `get_adcp_capabilities`. Only for a sandbox or staging
   * deployment: without this option the tool is in no tool list or card and a call to it is an
   * unknown tool, as the spec requires of production. `isSandbox` refuses live accounts (FORBIDDEN).
   */
  testController?: TestControllerOptions;
  /**
   * Probes for load balancers (docs/server.md, "Run a fleet"): `GET /healthz` answers 200 while
   * the process serves HTTP; `GET /readyz` 200 when it should get traffic, 503 while starting,
   * while a store's `ping` fails or `check` rejects (each round bounded by `timeoutMs`, default
   * 2,000), and from the moment `close` begins. Both are unauthenticated and say nothing internal.
   */
  health?: { check?: () => Promise<unknown>; timeoutMs?: number };
}
