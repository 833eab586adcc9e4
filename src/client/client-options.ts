import type { A2AWireChoice } from '../core/a2a-wire.js';
import type { JsonObject } from '../core/types.js';
import type { OperationStore } from '../store/types.js';
import type { AdcpTransport, ProgressEvent } from '../transport/transport.js';
import type { RetryNotice } from './retry.js';
import type { RequestSigningOptions } from '../signing/sign-request.js';
import type { ActivityListener } from '../telemetry/activity.js';

/** Retry ceilings for transient failures (transport-errors.md, "Retry ceiling"). */
export interface RetryOptions {
  /** Attempts in total, the first included. Default 3. */
  maxAttempts?: number;
  /** Cumulative time a call may spend, waits included, in seconds. Default 300. */
  maxTotalSeconds?: number;
  /** First backoff delay when the agent gives no `retry_after`, ms. Default 1000. */
  initialDelayMs?: number;
  /** Largest backoff delay, ms. Default 30 000. */
  maxDelayMs?: number;
}

/** Time and randomness, injected by tests. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export interface AdcpClientOptions {
  /**
   * The agent: MCP endpoint, or A2A agent base URL / card URL. Required unless `transport` is
   * given and names its URL (then it defaults to `transport.url`).
   */
  url?: string;
  /**
   * Talk through this transport instead of creating one from `url` and `protocol`: an in-memory
   * transport to a server in the same process (`createInMemoryTransport`), or your own. The
   * client owns it (`close()` closes it). The options that shape a created transport (`headers`,
   * `auth`, `fetch`, `signing`, `a2aWire`, `credentialOrigins`) are refused beside it: give them
   * to the transport.
   */
  transport?: AdcpTransport;
  /** `auto` (default) looks for an A2A agent card at the URL and otherwise speaks MCP. */
  protocol?: 'mcp' | 'a2a' | 'auto';
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Bearer token, sent as `authorization: Bearer <auth>`. */
  auth?: string;
  /**
   * Origins besides `url`'s that `auth` and `headers` may be sent to, e.g. `['https://api.seller.example']`
   * when the A2A card lists its interface there. A card interface on any other origin is refused
   * (`AdcpWireError('unsafe_url')`) while the client carries credentials.
   */
  credentialOrigins?: readonly string[];
  /**
   * Follow an A2A agent card to interfaces on private, loopback, link-local or metadata
   * addresses on another origin (a local setup). Default false: such a card is refused
   * (`AdcpWireError('unsafe_url')`) before anything is sent there, with or without credentials.
   * An agent URL on loopback may always point at other loopback origins.
   */
  allowPrivateCardTargets?: boolean;
  /** Injected fetch (tests, proxies). */
  fetch?: typeof fetch;
  /**
   * Sign every request (each MCP and A2A JSON-RPC POST) with RFC 9421 under the AdCP request
   * profile: `{ keyid, privateKey (private JWK or KeyObject), alg: 'ed25519' | 'es256' }`;
   * `coverContentDigest` (default true) binds the body.
   */
  signing?: RequestSigningOptions;
  /** Cap on one answer, in UTF-8 bytes, enforced while reading. Default 4 MiB. */
  maxResponseBytes?: number;
  /** Deadline of one `call()`, retries and waits included, ms. Default 300 000. */
  timeoutMs?: number;
  /** Retry ceilings, or `false` to never retry. */
  retry?: RetryOptions | false;
  /**
   * Schema validation with the official schemas of the negotiated release: `request` refuses
   * invalid arguments before sending (AdcpValidationError with pointers), `response` reports an
   * answer that does not match on `result.validation` (data kept), `both`, or `off`. Default
   * `off`: the seller validates every call anyway, and a tool's first check compiles its schemas.
   * Schemas come from ADCP_SCHEMAS_DIR, the `adcp schemas sync` cache or the built-in validators.
   */
  validate?: 'request' | 'response' | 'both' | 'off';
  /**
   * The AdCP release this client speaks (release precision, `3.1`; `3.0`; `3.2-beta.5` opt-in).
   * Sent as `adcp_version` (and `adcp_major_version`) on every request. Default `3.1`.
   */
  adcpVersion?: string;
  /**
   * Learn the agent's releases from `get_adcp_capabilities` once, before the first other call,
   * and speak the highest one in common (AdcpVersionError when none). Default: on when `validate`
   * is not `off` (the schemas must be those of the release the agent speaks: a 3.0 seller's answers
   * fail the 3.1 schemas), else off (one more round trip per client; the agent still downshifts a
   * pin it cannot serve and echoes the release served, which response validation follows).
   */
  negotiate?: boolean;
  /**
   * A2A only: which wire. `auto` (default) reads the agent card and speaks A2A 1.0 under the AdCP
   * A2A profile, or the card's v0.3 interface when its 1.0 one does not declare the profile (or
   * the card offers v0.3 only); `1.0` and `0.3` pin one. A 1.0 agent whose card breaks the
   * profile is refused (`AdcpWireError('profile_violation')`) unless you pass `plain`: A2A 1.0
   * without activating the profile and without holding its answers to it (decision 0165).
   */
  a2aWire?: A2AWireChoice;
  /**
   * MCP only: `auto` (default) learns the era once with `server/discover` (MCP 2026-07-28 to a
   * modern agent, the 2025 era to an older one; a network failure is an error, never a reason to
   * fall back); `modern` or `legacy` pins one.
   */
  mcpEra?: 'auto' | 'modern' | 'legacy';
  /** Records `submitted`/`working` results as operations and advances them while waiting. */
  operations?: OperationStore;
  /** Time and randomness for tests. */
  clock?: Partial<Clock>;
  /**
   * Told of every request (each attempt and poll), response and status change, as plain typed
   * events without bodies or credentials (docs/telemetry.md); its throws are ignored. The same
   * work is traced with OpenTelemetry when an SDK is registered.
   */
  onActivity?: ActivityListener;
}

export interface CallOptions {
  retry?: RetryOptions | false;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Accept the call as an MCP Task. On the 2025 era this asks for one (`params.task`, with `ttl`
   * in ms): the result carries its `transportTaskId`. On 2026-07-28 the server alone decides
   * (Tasks extension, SEP-2663) and the client declares task support on every request anyway, so
   * nothing more is sent and `ttl` is unused: `transportTaskId` is set only when the server made
   * a task (docs/decisions/0062). Refused with a TypeError on A2A (every A2A call
   * is a task: use `returnImmediately`) and for a tool whose listing forbids tasks, and with a
   * RangeError for a `ttl` that is not a positive whole number, on both eras.
   */
  task?: { ttl?: number };
  /** Used as is; generated (UUID v4) for mutating tools when absent. */
  idempotencyKey?: string;
  /**
   * Send no `idempotency_key` at all, not even a generated one (a conformance probe of the
   * missing-key path, storyboard `omit_idempotency_key`). A key in `args` is removed too.
   */
  omitIdempotencyKey?: boolean;
  /** Opaque object the agent echoes back (`result.context`). */
  context?: JsonObject;
  /** A2A conversation continuity; never sent on MCP. */
  contextId?: string;
  /**
   * A2A only: return as soon as the agent has the task (`submitted`/`working`), then follow it
   * with `waitFor`. A hint: the agent may still answer with the final state. Ignored on MCP,
   * where a call waits for its answer (ask for MCP Tasks with `task`).
   */
  returnImmediately?: boolean;
  /**
   * A2A only: continue an `input-required` task; pass its result's `transportTaskId` here and
   * its `contextId` as `contextId`. Refused with a TypeError on MCP.
   */
  continueTask?: string;
  maxResponseBytes?: number;
  onProgress?: (event: ProgressEvent) => void;
  /** Told before each wait between attempts: which attempt comes next, after how long, and why. */
  onRetry?: (notice: RetryNotice) => void;
}

export interface WaitOptions {
  /** Overall deadline, ms. Default 3 600 000 (one hour). */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** First delay between polls, ms. Default 2000; grows by half each poll up to `maxPollIntervalMs`. */
  pollIntervalMs?: number;
  /** Largest delay between polls, ms. Default 30 000. */
  maxPollIntervalMs?: number;
}
