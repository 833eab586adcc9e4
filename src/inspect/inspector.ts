import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AdcpClient } from '../client/adcp-client.js';
import type { DiscoverResult } from '../client/discover.js';
import { isFinalResult, type TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import type { A2AWireChoice } from '../core/a2a-wire.js';
import { isPlainObject } from '../core/plain-object.js';
import { createNodeHttpFetch } from '../transport/node-http-fetch.js';
import type { RequestSigningOptions } from '../signing/sign-request.js';
import type { ComplianceRelease } from '../storyboard/load.js';
import type { RunReport } from '../storyboard/types.js';
import type { RunStoryboardsOptions } from '../storyboard/run.js';
import { History, type HistoryEntry } from './history.js';
import { inScope, recordingFetch, SecretMask, type Exchange, type WireScope } from './wire-log.js';
import type { CheckResult } from './checks.js';
import { describeDiscovery, type DiscoveryView } from './discovery-view.js';
import type { SchemaView, ValidationView } from './schema-view.js';

/** The schema modules (Ajv and the validators) load on first use, not when the page starts. */
const schemaView = () => import('./schema-view.js');

/** How to reach one agent; the credentials stay in this process. */
export interface AgentConfig {
  url: string;
  protocol?: 'mcp' | 'a2a' | 'auto';
  mcpEra?: 'auto' | 'modern' | 'legacy';
  a2aWire?: A2AWireChoice;
  /** Bearer token. */
  auth?: string;
  headers?: Record<string, string>;
  credentialOrigins?: string[];
  signing?: RequestSigningOptions;
  /**
   * The seller's published JWKS (its brand.json `jwks_uri`): with it, a call that asks for
   * webhooks registers none of the legacy `authentication` and the receiver verifies the RFC 9421
   * signatures against these keys (webhooks.md, the default); without it, the legacy HMAC-SHA256
   * fallback with a secret made for this run (decision 0242).
   */
  webhookJwks?: string;
}

/** An agent as the page sees it: never its credentials, only whether it has some. */
export interface AgentView {
  id: string;
  url: string;
  protocol: 'mcp' | 'a2a' | 'auto';
  auth: boolean;
  headers: string[];
  signing: boolean;
  /** The JWKS the agent's webhooks are verified against (RFC 9421), when given. */
  webhookJwks?: string;
}

export interface WebhookDelivery {
  at: number;
  /** Verified and accepted, a duplicate, or refused (with why). */
  outcome: 'accepted' | 'duplicate' | 'refused';
  scheme?: string;
  /** RFC 9421: the key that signed it. */
  keyid?: string;
  status?: string;
  message?: string;
  httpStatus?: number;
  reason?: string;
  detail?: string;
  operationId?: string;
  taskId?: string;
  payload?: unknown;
}

export interface TaskEvent {
  at: number;
  kind: 'progress' | 'final' | 'cancel' | 'stopped' | 'error';
  status?: string;
  message?: string;
  taskId?: string;
}

/** One call and all that followed it, as the page and the history show it (masked). */
export interface CallView {
  id: string;
  at: number;
  agentId: string;
  agentUrl: string;
  protocol: string;
  tool: string;
  args: JsonObject;
  /** The call this one continues (an input-required answer). */
  parent?: string;
  release?: string;
  result?: JsonObject;
  /** The final result reached by following the task. */
  final?: JsonObject;
  /** The call could not be made or read (AdcpWireError and the like). */
  failure?: { code: string; message: string };
  /** Arguments refused by the request schema before anything was sent. */
  invalid?: ValidationView;
  following: boolean;
  events: TaskEvent[];
  webhookUrl?: string;
  /** How the registered webhooks are verified: RFC 9421 against the agent's JWKS, or the legacy HMAC. */
  webhookScheme?: 'rfc9421' | 'hmac';
  webhooks: WebhookDelivery[];
  exchanges: Exchange[];
}

export interface CallRequest {
  agentId: string;
  tool: string;
  args: JsonObject;
  /** Ask the agent to push status changes to the inspector's receiver. */
  webhook?: boolean;
  /** MCP only: an MCP Task-augmented call. */
  mcpTask?: boolean;
  /** Send even when the arguments fail the request schema (to see what the agent says). */
  force?: boolean;
  /** Continue this call's input-required task (A2A), or call again in its place (MCP). */
  continueOf?: string;
}

/**
 * One storyboard run from the Check tab: which storyboards, and the runner's options (as
 * `adcp storyboard run` takes them; `runStoryboards` in src/storyboard/run.ts says what each does).
 */
export interface StoryboardRunRequest {
  /** Only these storyboards (ids or files); default: selected from the agent's capabilities. */
  ids?: readonly string[];
  /** The built-in webhook receiver for expect_webhook steps (default true; false: `--no-webhooks`). */
  webhooks?: boolean;
  /** Runner tasks may fetch http:// and private or loopback URLs the agent names (`--allow-http`). */
  allowHttp?: boolean;
  /** The agent's brand.json when its capabilities declare none (`--brand-json URL`). */
  brandJsonUrl?: string;
  /** Offer the rate_limit_trip_runner contract (`--rate-limit-trip`). */
  rateLimitTrip?: boolean;
  /** Prerequisite state was seeded out of band (`--seeded-state`). */
  seededState?: boolean;
  /** Deadline of the whole run, seconds (1-3600); default the inspector's `storyboardBudgetMs`. */
  budgetSeconds?: number;
  /**
   * The request-signing vectors folder signed_requests grades with (`--signing-vectors DIR`):
   * keys.json, positive/, negative/; relative to the inspector's working folder.
   */
  signingVectors?: string;
}

export type InspectorEvent =
  | { type: 'call'; call: CallView }
  | { type: 'agent'; agent: AgentView }
  | { type: 'storyboard'; agentId: string; line: string; done: number; total: number };

export interface InspectorOptions {
  /** SQLite file for the kept calls, or `:memory:`. */
  historyPath: string;
  /** Deadline of one call, ms (default 60 000). */
  timeoutMs?: number;
  /** How long a submitted task is followed at most, ms (default 30 min). */
  followMs?: number;
  /** First and largest poll interval while following, ms (default 1000 and 5000). */
  pollMs?: [number, number];
  /**
   * Where the Check tab's storyboards come from (a compliance folder or a verified release
   * tarball, read on the first run); without it the Check tab runs the conformance checks only.
   */
  compliance?: () => Promise<ComplianceRelease>;
  /** Deadline of one storyboard run, ms (default 5 min); the report says what it cut short. */
  storyboardBudgetMs?: number;
}

interface Agent {
  view: AgentView;
  config: AgentConfig;
  /** The agent's one AdcpClient, made on first use. */
  client(): Promise<AdcpClient>;
  /** The client if it was ever asked for (to close it). */
  opened(): Promise<AdcpClient> | undefined;
  mask: SecretMask;
  recorder: { close(): void };
}

/** What a progress event brings to the call's timeline (the client's ProgressEvent, read as such). */
type ProgressLine = { status: string; taskId?: string; message?: string };

interface Call {
  view: CallView;
  agent: Agent;
  result?: TaskResult;
  stop?: AbortController;
  scope: WireScope;
}

/**
 * The inspector's state: the agents the user named (each with one AdcpClient whose every request
 * is recorded), the calls made and the tasks they started (followed live), the webhook
 * deliveries matched to them, and the history file. The HTTP layer (`server.ts`) is a thin map
 * of routes onto these methods.
 */
export class Inspector {
  readonly history: History;
  readonly webhookSecret = randomBytes(32).toString('base64url');
  /** Set by the server once it listens: `http://127.0.0.1:PORT/webhooks/`. */
  webhookBase: string | undefined;
  readonly #agents = new Map<string, Agent>();
  readonly #calls = new Map<string, Call>();
  readonly #listeners = new Set<(event: InspectorEvent) => void>();
  readonly #timeoutMs: number;
  readonly #followMs: number;
  readonly #pollMs: [number, number];
  readonly #pending = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #compliance: (() => Promise<ComplianceRelease>) | undefined;
  #suite: Promise<ComplianceRelease> | undefined;
  readonly #storyboardBudgetMs: number;
  /** Storyboard runs under way, by agent: one at a time each, stopped by close(). */
  readonly #runs = new Map<string, AbortController>();

  constructor(options: InspectorOptions) {
    this.history = new History(options.historyPath);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
    this.#followMs = options.followMs ?? 30 * 60_000;
    this.#pollMs = options.pollMs ?? [1000, 5000];
    this.#compliance = options.compliance;
    this.#storyboardBudgetMs = options.storyboardBudgetMs ?? 5 * 60_000;
  }

  /** Whether the Check tab can run storyboards (a compliance suite was named). */
  get storyboards(): boolean {
    return this.#compliance !== undefined;
  }

  /** A Check-tab run's budget when the page names none, seconds. */
  get storyboardBudgetSeconds(): number {
    return Math.round(this.#storyboardBudgetMs / 1000);
  }

  /** Told of every change to an agent or a call (the page's live stream). */
  subscribe(listener: (event: InspectorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  agents(): AgentView[] {
    return [...this.#agents.values()].map((a) => a.view);
  }

  /** Adds an agent (the same URL and wire twice is the same agent). Throws TypeError for a bad URL or option. */
  async addAgent(config: AgentConfig): Promise<AgentView> {
    const protocol = config.protocol ?? 'auto';
    const url = new URL(config.url).href;
    if (config.webhookJwks !== undefined) {
      let jwks: URL;
      try {
        jwks = new URL(config.webhookJwks);
      } catch {
        throw new TypeError(`webhookJwks: '${config.webhookJwks.slice(0, 200)}' is not a URL`);
      }
      if (jwks.protocol !== 'https:' && !['127.0.0.1', 'localhost', '[::1]'].includes(jwks.hostname))
        throw new TypeError('webhookJwks must be https (loopback http is allowed)');
      config = { ...config, webhookJwks: jwks.href };
    }
    for (const agent of this.#agents.values()) {
      if (
        agent.view.url === url &&
        agent.view.protocol === protocol &&
        config.auth === undefined &&
        agent.view.webhookJwks === config.webhookJwks
      )
        return agent.view;
    }
    const mask = new SecretMask();
    mask.addSecret(config.auth);
    mask.addSecret(this.webhookSecret);
    for (const [name, value] of Object.entries(config.headers ?? {})) mask.addHeader(name, value);
    const node = createNodeHttpFetch();
    const recorder = recordingFetch(node.fetch, mask);
    const agentConfig: AgentConfig = { ...config, url };
    const timeoutMs = this.#timeoutMs;
    let opening: Promise<AdcpClient> | undefined;
    // The client (and the MCP and A2A SDKs under it) loads with the agent's first use, not before
    // the page is up: `adcp inspect <url>` prints its address without waiting for it.
    const client = (): Promise<AdcpClient> =>
      (opening ??= import('../client/adcp-client.js').then(
        ({ AdcpClient }) =>
          new AdcpClient({
            url,
            protocol,
            fetch: recorder.fetch,
            timeoutMs,
            negotiate: true,
            validate: 'response',
            ...(config.mcpEra !== undefined ? { mcpEra: config.mcpEra } : {}),
            ...(config.a2aWire !== undefined ? { a2aWire: config.a2aWire } : {}),
            ...(config.auth !== undefined ? { auth: config.auth } : {}),
            ...(config.headers !== undefined ? { headers: config.headers } : {}),
            ...(config.credentialOrigins !== undefined ? { credentialOrigins: config.credentialOrigins } : {}),
            ...(config.signing !== undefined ? { signing: config.signing } : {}),
          }),
      ));
    const view: AgentView = {
      id: randomUUID().slice(0, 8),
      url,
      protocol,
      auth: config.auth !== undefined,
      headers: Object.keys(config.headers ?? {}),
      signing: config.signing !== undefined,
      ...(config.webhookJwks !== undefined ? { webhookJwks: config.webhookJwks } : {}),
    };
    this.#agents.set(view.id, {
      view,
      config: agentConfig,
      client,
      opened: () => opening,
      mask,
      recorder: { close: () => (recorder.close(), node.close()) },
    });
    this.#emit({ type: 'agent', agent: view });
    return view;
  }

  #agent(id: string): Agent {
    const agent = this.#agents.get(id);
    if (agent === undefined) throw new RangeError(`no agent ${id}`);
    return agent;
  }

  /** Cards, capabilities, negotiated release, MCP era, A2A profile check and tools; with the wire exchanges. */
  async discover(agentId: string): Promise<DiscoveryView> {
    const agent = this.#agent(agentId);
    const scope: WireScope = { exchanges: [] };
    return inScope(scope, async () => {
      let found: DiscoverResult | undefined;
      let problem: string | undefined;
      try {
        found = await (await agent.client()).discover({ timeoutMs: this.#timeoutMs });
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
      const other = found === undefined ? undefined : await this.#otherCard(agent, found.protocol);
      const release = found === undefined ? undefined : await releaseOf(agent);
      return describeDiscovery({
        agent: agent.view,
        ...(found !== undefined ? { found } : {}),
        ...(problem !== undefined ? { problem } : {}),
        ...(other !== undefined ? { other } : {}),
        ...(release !== undefined ? { release } : {}),
        exchanges: agent.mask.json(scope.exchanges),
      });
    });
  }

  /** The card of the other wire at the same agent (an MCP seller may also speak A2A, and back). */
  async #otherCard(
    agent: Agent,
    protocol: 'mcp' | 'a2a',
  ): Promise<{ protocol: 'mcp' | 'a2a'; url?: string; card?: JsonObject; problem?: string }> {
    const other = protocol === 'mcp' ? 'a2a' : 'mcp';
    const headers: Record<string, string> = { ...agent.config.headers };
    if (agent.config.auth !== undefined) headers['authorization'] = `Bearer ${agent.config.auth}`;
    const { createTransport } = await import('../client/create-transport.js');
    const node = createNodeHttpFetch();
    try {
      const transport = await createTransport(other, {
        url: agent.view.url,
        headers,
        fetch: node.fetch,
        maxBytes: 256 * 1024,
        ...(agent.config.credentialOrigins !== undefined ? { credentialOrigins: agent.config.credentialOrigins } : {}),
      });
      try {
        const card = await transport.readCard({ maxBytes: 256 * 1024, signal: AbortSignal.timeout(this.#timeoutMs) });
        return {
          protocol: other,
          ...(card.url !== undefined ? { url: card.url } : {}),
          ...(card.card !== undefined ? { card: card.card } : {}),
          ...(card.problem !== undefined ? { problem: card.problem } : {}),
        };
      } finally {
        await transport.close().catch(() => undefined);
      }
    } catch (error) {
      return { protocol: other, problem: error instanceof Error ? error.message : 'none found' };
    } finally {
      node.close();
    }
  }

  /** The request schema of `tool` in the release negotiated with the agent, for the page's form. */
  async schema(agentId: string, tool: string): Promise<SchemaView> {
    const agent = this.#agent(agentId);
    const release = await releaseOf(agent);
    return (await schemaView()).requestSchemaFor(tool, release);
  }

  /** The arguments against the request schema, with what the client adds (idempotency key, version) filled in. */
  async validate(agentId: string, tool: string, args: JsonObject): Promise<ValidationView> {
    const agent = this.#agent(agentId);
    const release = await releaseOf(agent);
    return (await schemaView()).validateRequest(tool, args, release);
  }

  /** Sends one call; a submitted or working answer is followed in the background. */
  async call(request: CallRequest): Promise<CallView> {
    const agent = this.#agent(request.agentId);
    if (!isPlainObject(request.args)) throw new TypeError('args must be a JSON object');
    if (typeof request.tool !== 'string' || !/^[a-z][a-z0-9_./-]{0,99}$/i.test(request.tool))
      throw new TypeError('tool must be a tool name, like get_products');
    const parent = request.continueOf === undefined ? undefined : this.#calls.get(request.continueOf);
    if (request.continueOf !== undefined && parent === undefined) throw new RangeError(`no call ${request.continueOf}`);
    const id = randomUUID();
    const args: JsonObject = { ...request.args };
    const view: CallView = {
      id,
      at: Date.now(),
      agentId: agent.view.id,
      agentUrl: agent.view.url,
      protocol: agent.view.protocol,
      tool: request.tool,
      args: agent.mask.json(args),
      following: false,
      events: [],
      webhooks: [],
      exchanges: [],
    };
    if (parent !== undefined) view.parent = parent.view.id;
    const call: Call = { view, agent, scope: { exchanges: view.exchanges, onChange: () => this.#changed(call) } };
    this.#calls.set(id, call);
    if (request.force !== true) {
      const checked = await this.validate(agent.view.id, request.tool, args);
      if (checked.release !== undefined) view.release = checked.release;
      if (!checked.ok) {
        view.invalid = checked;
        this.#save(call);
        return view;
      }
    }
    if (request.webhook === true) {
      if (this.webhookBase === undefined) throw new TypeError('the webhook receiver is not listening');
      view.webhookUrl = `${this.webhookBase}${id}`;
      view.webhookScheme = agent.config.webhookJwks !== undefined ? 'rfc9421' : 'hmac';
      args['push_notification_config'] =
        view.webhookScheme === 'rfc9421'
          ? { url: view.webhookUrl, operation_id: id }
          : {
              url: view.webhookUrl,
              operation_id: id,
              authentication: { schemes: ['HMAC-SHA256'], credentials: this.webhookSecret },
            };
      view.args = agent.mask.json(args);
    }
    const onProgress = (event: ProgressLine) => this.#progress(call, event);
    await inScope(call.scope, async () => {
      try {
        const continuing = parent?.result;
        const result = await (
          await agent.client()
        ).call(request.tool, args, {
          onProgress,
          ...(request.mcpTask === true ? { task: {} } : {}),
          ...(continuing?.protocol === 'a2a' && continuing.transportTaskId !== undefined
            ? {
                continueTask: continuing.transportTaskId,
                ...(continuing.contextId !== undefined ? { contextId: continuing.contextId } : {}),
              }
            : {}),
        });
        call.result = result;
        view.result = resultView(result, agent.mask);
        view.protocol = result.protocol;
        const release = view.release ?? (await releaseOf(agent));
        if (release !== undefined) view.release = release;
      } catch (error) {
        view.failure = failureOf(error);
      }
    });
    if (call.result !== undefined && (call.result.status === 'submitted' || call.result.status === 'working'))
      this.#follow(call, call.result);
    await settle();
    this.#save(call);
    return view;
  }

  /** Records a progress line on the call's timeline and tells the page. */
  #progress(call: Call, event: ProgressLine): void {
    call.view.events.push({
      at: Date.now(),
      kind: 'progress',
      status: event.status,
      ...(event.taskId !== undefined ? { taskId: event.taskId } : {}),
      ...(event.message !== undefined ? { message: event.message } : {}),
    });
    this.#changed(call);
  }

  /** Polls (AdCP tasks, MCP Tasks or A2A) until the task is final, cancelled here, or out of time. */
  #follow(call: Call, result: TaskResult): void {
    const stop = new AbortController();
    call.stop = stop;
    call.view.following = true;
    void inScope(call.scope, async () => {
      try {
        const final = await (
          await call.agent.client()
        ).waitFor(result, {
          signal: stop.signal,
          timeoutMs: this.#followMs,
          pollIntervalMs: this.#pollMs[0],
          maxPollIntervalMs: this.#pollMs[1],
          onProgress: (event) => {
            const last = call.view.events.at(-1);
            if (last?.status === event.status && last.message === event.message) return;
            this.#progress(call, event);
          },
        });
        call.result = final;
        call.view.final = resultView(final, call.agent.mask);
        call.view.events.push({ at: Date.now(), kind: 'final', status: final.status });
      } catch (error) {
        call.view.events.push({
          at: Date.now(),
          kind: stop.signal.aborted ? 'stopped' : 'error',
          message: error instanceof Error ? error.message : String(error),
        });
      } finally {
        // Kept first, then shown as no longer followed: whoever sees it stopped finds it saved.
        await settle();
        call.view.following = false;
        this.#save(call);
        this.#emit({ type: 'call', call: call.view });
      }
    });
  }

  /**
   * Stops following and cancels the transport task (A2A `CancelTask`, MCP `tasks/cancel`); AdCP
   * itself has no cancel task, so an AdCP task_id alone is only no longer followed.
   */
  async cancel(callId: string): Promise<CallView> {
    const call = this.#calls.get(callId);
    if (call === undefined) throw new RangeError(`no call ${callId}`);
    call.stop?.abort();
    const taskId = call.result?.transportTaskId;
    await inScope(call.scope, async () => {
      if (taskId === undefined) {
        call.view.events.push({
          at: Date.now(),
          kind: 'cancel',
          message: 'stopped following; the agent gave no transport task to cancel (AdCP has no cancel task)',
        });
        return;
      }
      try {
        const canceled = await (await call.agent.client()).cancelTransportTask(taskId, { timeoutMs: this.#timeoutMs });
        call.view.final = resultView(canceled, call.agent.mask);
        call.view.events.push({ at: Date.now(), kind: 'cancel', status: canceled.status, taskId });
      } catch (error) {
        call.view.events.push({ at: Date.now(), kind: 'error', message: failureOf(error).message, taskId });
      }
    });
    await settle();
    // No longer followed from here on (the follower's own ending says so again): kept, then shown.
    call.view.following = false;
    this.#save(call);
    return call.view;
  }

  getCall(callId: string): CallView | undefined {
    return this.#calls.get(callId)?.view ?? (this.history.get(callId)?.record as CallView | undefined);
  }

  /** Conformance checks that apply to a live agent, each with its verdict and why. */
  async checks(agentId: string): Promise<CheckResult[]> {
    const agent = this.#agent(agentId);
    const discovery = await this.discover(agentId);
    const { runChecks } = await import('./checks.js');
    return runChecks(discovery, await agent.client());
  }

  /**
   * Runs the storyboards that apply to the agent (selected from its capabilities, or `ids`) with
   * the storyboard runner, over their own connections: every verdict comes back explained
   * (request, answer, pointer, expected, actual, storyboard source). Progress goes to subscribers
   * as `storyboard` events. Throws TypeError when no compliance suite was named or a run is
   * already under way for this agent, RangeError for an unknown id.
   */
  async runStoryboards(agentId: string, request: StoryboardRunRequest = {}): Promise<RunReport> {
    const agent = this.#agent(agentId);
    const options = storyboardOptions(request);
    const ids = request.ids;
    if (this.#compliance === undefined)
      throw new TypeError(
        'no compliance suite: start adcp inspect with --compliance-dir DIR (or ADCP_COMPLIANCE_DIR), or --release VERSION',
      );
    if (this.#runs.has(agentId)) throw new TypeError('a storyboard run is already under way for this agent');
    const stop = new AbortController();
    this.#runs.set(agentId, stop);
    try {
      const load = this.#compliance;
      const suite = await (this.#suite ??= load().catch((error: unknown) => {
        this.#suite = undefined;
        throw error;
      }));
      const { runStoryboards } = await import('../storyboard/run.js');
      const { ComplianceError } = await import('../storyboard/load.js');
      const { config } = agent;
      let done = 0;
      let total = 0;
      const say = (line: string) =>
        this.#emit({ type: 'storyboard', agentId, line: agent.mask.text(line), done, total });
      try {
        const report = await runStoryboards({
          agentUrl: config.url,
          compliance: suite,
          protocol: config.protocol ?? 'auto',
          stepTimeoutMs: Math.min(this.#timeoutMs, 30_000),
          budgetMs: this.#storyboardBudgetMs,
          ...options,
          signal: stop.signal,
          ...(ids !== undefined && ids.length > 0 ? { ids } : {}),
          ...(config.auth !== undefined ? { auth: config.auth } : {}),
          ...(config.headers !== undefined ? { headers: config.headers } : {}),
          ...(config.mcpEra !== undefined ? { mcpEra: config.mcpEra } : {}),
          ...(config.signing !== undefined ? { signing: config.signing } : {}),
          ...(config.credentialOrigins !== undefined ? { credentialOrigins: config.credentialOrigins } : {}),
          onEvent: (event) => {
            if (event.type === 'selected') {
              total = event.storyboards.length;
              say(`${total} storyboards selected (compliance ${suite.version})`);
            } else if (event.type === 'storyboard_start') say(`running ${event.id}: ${event.title}`);
            else if (event.type === 'storyboard_end') {
              done = event.index + 1;
              say(`${event.outcome.id}: ${event.outcome.verdict.replace('_', ' ')}`);
            }
          },
        });
        return agent.mask.json(report);
      } catch (error) {
        if (error instanceof ComplianceError) throw new RangeError(error.message);
        throw error;
      }
    } finally {
      this.#runs.delete(agentId);
    }
  }

  /** A delivery the receiver answered, matched to its call by the URL it was sent to. */
  recordWebhook(callId: string | undefined, delivery: WebhookDelivery): void {
    const call = callId === undefined ? undefined : this.#calls.get(callId);
    const masked = call === undefined ? delivery : call.agent.mask.json(delivery);
    if (call === undefined) return;
    call.view.webhooks.push(masked);
    this.#changed(call);
    this.#save(call);
  }

  /**
   * How a call's webhooks are received: the JWKS they are verified against (RFC 9421; none for the
   * legacy HMAC) and the release the agent speaks (its envelope rules).
   */
  webhookRouteOf(callId: string): { jwks?: { url: string; agentUrl: string }; release?: string } {
    const call = this.#calls.get(callId);
    if (call === undefined) return {};
    const jwks =
      call.view.webhookScheme === 'rfc9421' && call.agent.config.webhookJwks !== undefined
        ? { url: call.agent.config.webhookJwks, agentUrl: call.agent.view.url }
        : undefined;
    return {
      ...(jwks !== undefined ? { jwks } : {}),
      ...(call.view.release !== undefined ? { release: call.view.release } : {}),
    };
  }

  /** Knows the call, so the receiver can refuse deliveries for calls it never made. */
  hasCall(callId: string): boolean {
    return this.#calls.has(callId);
  }

  /** Coalesces bursts of changes (exchanges, progress) into one event per call every 50 ms. */
  #changed(call: Call): void {
    if (this.#pending.has(call.view.id)) return;
    this.#pending.set(
      call.view.id,
      setTimeout(() => {
        this.#pending.delete(call.view.id);
        this.#emit({ type: 'call', call: call.view });
      }, 50),
    );
  }

  #emit(event: InspectorEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // a listener that failed (a closed page) does not stop the others
      }
    }
  }

  #save(call: Call): void {
    const entry: HistoryEntry = {
      id: call.view.id,
      at: call.view.at,
      agentUrl: call.view.agentUrl,
      protocol: call.view.protocol,
      tool: call.view.tool,
      status: statusOf(call.view),
      record: call.view as unknown as Record<string, unknown>,
    };
    try {
      this.history.save(entry);
    } catch {
      // the history is a convenience: a full disk does not fail the call
    }
  }

  async close(): Promise<void> {
    for (const timer of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
    for (const call of this.#calls.values()) call.stop?.abort();
    for (const run of this.#runs.values()) run.abort();
    for (const agent of this.#agents.values()) {
      agent.recorder.close();
      const opened = agent.opened();
      if (opened !== undefined) await opened.then((client) => client.close()).catch(() => undefined);
    }
    this.#agents.clear();
    this.history.close();
  }
}

/** The latest AdCP status of a call, for the history list. */
export function statusOf(call: CallView): string {
  if (call.invalid !== undefined) return 'invalid';
  if (call.failure !== undefined) return 'unreachable';
  const final = call.final?.['status'];
  if (typeof final === 'string') return final;
  const last = [...call.events].reverse().find((e) => e.status !== undefined)?.status;
  if (last !== undefined && call.following) return last;
  const status = call.result?.['status'];
  return typeof status === 'string' ? status : 'unknown';
}

/** A TaskResult as plain JSON for the page, masked: status, ids, message, data, error, validation, raw. */
export function resultView(result: TaskResult, mask: SecretMask): JsonObject {
  const out: JsonObject = { status: result.status, protocol: result.protocol, final: isFinalResult(result) };
  if (result.taskId !== undefined) out['taskId'] = result.taskId;
  if (result.transportTaskId !== undefined) out['transportTaskId'] = result.transportTaskId;
  if (result.contextId !== undefined) out['contextId'] = result.contextId;
  if (result.message !== undefined) out['message'] = result.message;
  if (result.context !== undefined) out['context'] = result.context;
  if ('data' in result && result.data !== undefined) out['data'] = result.data;
  if ('error' in result && result.error !== undefined) out['error'] = result.error;
  if (result.validation !== undefined) out['validation'] = result.validation;
  if (result.files !== undefined) out['files'] = result.files;
  if (result.operation !== undefined) out['operation'] = result.operation;
  out['raw'] = result.raw ?? null;
  return mask.json(JSON.parse(JSON.stringify(out)) as JsonObject);
}

function failureOf(error: unknown): { code: string; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    code: typeof code === 'string' ? code : error instanceof TypeError ? 'misuse' : 'error',
    message: error instanceof Error ? error.message : String(error),
  };
}

/** The release negotiated with the agent, or undefined when there is none (yet). */
function releaseOf(agent: Agent): Promise<string | undefined> {
  return agent
    .client()
    .then((client) => client.negotiatedRelease())
    .catch(() => undefined);
}

/** Lets the recorder finish reading bodies that ended with the answer (a few ms). */
function settle(): Promise<void> {
  return new Promise((done) => setTimeout(done, 20));
}

/**
 * The runner's options of a Check-tab run, checked: booleans are booleans, the brand.json an
 * http(s) URL, the budget 1 to 3600 seconds (TypeError otherwise). Unset options keep the
 * runner's defaults (a webhook receiver, https-only runner fetches, no rate-limit trip).
 */
export function storyboardOptions(
  request: StoryboardRunRequest,
): Pick<
  RunStoryboardsOptions,
  'webhooks' | 'allowHttp' | 'brandJsonUrl' | 'rateLimitTrip' | 'seededState' | 'budgetMs' | 'signingVectors'
> {
  const flag = (name: 'webhooks' | 'allowHttp' | 'rateLimitTrip' | 'seededState'): boolean | undefined => {
    const value: unknown = request[name];
    if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${name} must be true or false`);
    return value;
  };
  const out: ReturnType<typeof storyboardOptions> = {};
  if (flag('webhooks') === false) out.webhooks = false;
  if (flag('allowHttp') === true) out.allowHttp = true;
  if (flag('rateLimitTrip') === true) out.rateLimitTrip = true;
  if (flag('seededState') === true) out.seededState = true;
  const brand: unknown = request.brandJsonUrl;
  if (brand !== undefined) {
    let url: URL | undefined;
    try {
      url = typeof brand === 'string' ? new URL(brand) : undefined;
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new TypeError(
        `brandJsonUrl must be an http(s) URL, not ${(JSON.stringify(brand) ?? typeof brand).slice(0, 200)}`,
      );
    out.brandJsonUrl = url.href;
  }
  const budget: unknown = request.budgetSeconds;
  if (budget !== undefined) {
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1 || budget > 3600)
      throw new TypeError('budgetSeconds must be a whole number of seconds from 1 to 3600');
    out.budgetMs = budget * 1000;
  }
  const vectors: unknown = request.signingVectors;
  if (vectors !== undefined) {
    if (typeof vectors !== 'string' || vectors === '' || vectors.length > 4096)
      throw new TypeError('signingVectors must be the path of a request-signing vectors folder');
    const folder = resolve(vectors);
    if (!existsSync(join(folder, 'keys.json')))
      throw new TypeError(
        `signingVectors: no keys.json in ${folder}: give the request-signing vectors folder (keys.json, positive/, negative/)`,
      );
    out.signingVectors = folder;
  }
  return out;
}
