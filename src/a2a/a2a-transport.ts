import { AdcpWireError } from '../core/wire-error.js';
import { findInexactInteger } from '../core/json-number.js';
import type { JsonObject } from '../core/types.js';
import type { TaskResult } from '../core/task-result.js';
import type {
  AdcpTransport,
  CardInfo,
  ProgressEvent,
  ToolInfo,
  TransportCallOptions,
  TransportOptions,
} from '../transport/transport.js';
import { callJsonRpc, streamJsonRpc, type RpcErrorObject, type RpcRequest } from './json-rpc.js';
import type { A2AEndpoint, A2AWire } from './select-interface.js';
import {
  A2A_METHODS,
  A2A_WIRE_CHOICES,
  VERSION_NOT_SUPPORTED,
  invocationParams,
  taskIdParams,
  wireHeaders,
  type A2AWireChoice,
} from '../core/a2a-wire.js';
import { TaskSnapshot, classifyEvent } from './task-snapshot.js';
import { progressFromEvent, resultFromA2A } from './to-task-result.js';
import { taskResultFromJsonRpcError } from '../core/task-result-from-json-rpc.js';
import {
  canStream,
  legacyEndpoint,
  lookupCard,
  resolveTarget,
  type ResolveOptions,
  type Target,
} from './resolve-target.js';
import { rpcErrorToResult } from './rpc-error.js';
import { skillsOf } from './list-skills.js';
import { linkSignal } from '../transport/link-signal.js';
import { checkCredentialOrigin, checkTargetAddress, credentialOriginsOf } from '../core/credential-origins.js';
import { assertProfileAnswer, assertProfileCard, isProfiled } from './profile-rules.js';
import { checkProfileCard } from '../core/a2a-profile-card.js';

/**
 * Per-call options the A2A transport understands on top of the shared ones (which include
 * `returnImmediately` and `continueTask`).
 */
export interface A2ACallOptions extends TransportCallOptions {
  /** Add a display-only TextPart `AdCP task: <tool>` before the DataPart (off by default). */
  advisoryText?: boolean;
}

type Outcome =
  { kind: 'result'; result: TaskResult } | { kind: 'rpc-error'; error: RpcErrorObject; endpoint: A2AEndpoint };

/**
 * AdCP over A2A 1.0 and v0.3 with a hand-written JSON-RPC + SSE client over the injected
 * `fetch`: the card decides the wire (1.0 preferred; `a2aWire` pins it), a 1.0 request refused
 * with `VERSION_NOT_SUPPORTED` falls back to v0.3 once and the choice is kept for this client.
 */
export class A2ATransport implements AdcpTransport {
  readonly protocol = 'a2a' as const;
  readonly url: string;
  private readonly options: TransportOptions;
  private readonly fetch: typeof fetch;
  private readonly pin: A2AWireChoice;
  private target: Promise<Target> | undefined;
  private readonly closing = new AbortController();
  private readonly credentialOrigins: ReadonlySet<string>;

  constructor(options: TransportOptions) {
    if (typeof options.url !== 'string' || !/^https?:\/\//i.test(options.url)) {
      throw new TypeError(`createA2ATransport: url must be an http(s) URL, got ${String(options.url)}`);
    }
    if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1) {
      throw new RangeError(`createA2ATransport: maxBytes must be a positive integer, got ${String(options.maxBytes)}`);
    }
    const pin = options.a2aWire ?? 'auto';
    if (!(A2A_WIRE_CHOICES as readonly unknown[]).includes(pin)) {
      throw new TypeError(`createA2ATransport: a2aWire must be 'auto', '1.0', '0.3' or 'plain', got ${String(pin)}`);
    }
    this.url = options.url;
    this.options = options;
    this.credentialOrigins = credentialOriginsOf(options.url, options.credentialOrigins);
    this.pin = pin;
    // The global fetch looked up per request (as AdcpClient always did), wrapped as AdcpClient asks.
    const global: typeof fetch = (input, init) => globalThis.fetch(input, init);
    this.fetch = options.fetch ?? options.wrapFetch?.(global) ?? globalThis.fetch.bind(globalThis);
  }

  /** `plain`: A2A 1.0 without activating the AdCP profile or holding answers to it (decision 0165). */
  private get plain(): boolean {
    return this.pin === 'plain';
  }

  /** The wire pinned (`plain` is the 1.0 wire), or `auto`. */
  private get wirePin(): 'auto' | A2AWire {
    return this.pin === 'plain' ? '1.0' : this.pin;
  }

  /** The wire and endpoint in use (chosen on first use, changed at most once by the fallback). */
  async currentEndpoint(options: TransportCallOptions): Promise<A2AEndpoint> {
    return (await this.resolve(options)).endpoint;
  }

  /** Invokes one skill: a blocking send, a non-blocking one (`returnImmediately`), or a stream when `onProgress` is given. */
  async callTool(tool: string, args: JsonObject, callerOptions: A2ACallOptions): Promise<TaskResult> {
    if (typeof tool !== 'string' || tool === '') throw new TypeError('callTool: tool must be a non-empty string');
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      throw new TypeError('callTool: args must be a JSON object');
    const { continueTask } = callerOptions;
    if (continueTask !== undefined && (typeof continueTask !== 'string' || continueTask === '')) {
      throw new TypeError('callTool: continueTask must be the transportTaskId of an input-required result');
    }
    return this.linked(callerOptions, (options) => this.invoke(tool, args, options));
  }

  private async invoke(tool: string, args: JsonObject, options: A2ACallOptions): Promise<TaskResult> {
    const target = await this.resolve(options);
    const streaming = options.onProgress !== undefined && options.returnImmediately !== true && canStream(target);
    // a2a-profile-extension.md, "JSON number interoperability": never round an integer on the way out.
    const inexact = findInexactInteger(args);
    if (inexact !== undefined) {
      throw new RangeError(
        `callTool: ${tool} input ${inexact} is an integer outside ±(2^53−1), which A2A cannot carry exactly: send it as a string`,
      );
    }
    return this.withFallback(target, tool, (endpoint) => {
      if (!this.plain) assertProfileCard(target.lookup, target.profile, endpoint);
      const params = invocationParams(endpoint.wire, tool, args, {
        messageId: globalThis.crypto.randomUUID(),
        contextId: options.contextId,
        taskId: options.continueTask,
        returnImmediately: options.returnImmediately,
        advisoryText: options.advisoryText === true ? `AdCP task: ${tool}` : undefined,
      });
      const method = streaming ? A2A_METHODS[endpoint.wire].stream : A2A_METHODS[endpoint.wire].send;
      const request = this.request(endpoint, method, params, options, tool);
      return streaming
        ? this.stream(request, target, endpoint, options.onProgress)
        : this.once(request, target, endpoint);
    });
  }

  /** `GetTask` / `tasks/get` of an A2A task id (a result's `transportTaskId`). */
  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    return this.taskMethod('get', taskId, options);
  }

  /** `CancelTask` / `tasks/cancel` of an A2A task id. */
  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    return this.taskMethod('cancel', taskId, options);
  }

  /** The agent card's skills. */
  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    return skillsOf((await this.resolve(options)).lookup);
  }

  /** Reads the card again: found, absent (`{}`), or a reported problem. */
  async readCard(options: TransportCallOptions): Promise<CardInfo> {
    const lookup = await lookupCard(this.resolveOptions(options));
    if (lookup.found) return { url: lookup.url, card: lookup.card, a2aProfile: checkProfileCard(lookup.card) };
    if (lookup.problem === undefined) return {};
    return { ...(lookup.problemUrl === undefined ? {} : { url: lookup.problemUrl }), problem: lookup.problem };
  }

  /** Ends the streams and abortable calls in flight (they fail with `aborted`) and refuses new calls. */
  async close(): Promise<void> {
    this.closing.abort(
      new AdcpWireError('aborted', `A2A transport for ${this.options.url} was closed`, { url: this.options.url }),
    );
  }

  private async taskMethod(
    which: 'get' | 'cancel',
    taskId: string,
    callerOptions: TransportCallOptions,
  ): Promise<TaskResult> {
    if (typeof taskId !== 'string' || taskId === '')
      throw new TypeError(`${which}Task: taskId must be a non-empty string`);
    return this.linked(callerOptions, async (options) => {
      const target = await this.resolve(options);
      return this.withFallback(target, undefined, (endpoint) => {
        if (!this.plain) assertProfileCard(target.lookup, target.profile, endpoint);
        return this.once(
          this.request(endpoint, A2A_METHODS[endpoint.wire][which], taskIdParams(taskId), options, undefined),
          target,
          endpoint,
        );
      });
    });
  }

  /**
   * Runs `run` with the caller's signal linked to the transport's close. A call with no caller
   * signal and no progress listener (a plain blocking send, get or cancel) gets no signal at all:
   * an abort signal on a fetch costs about a tenth of a loopback call, and such a call ends with
   * its answer. Streams and calls the caller can abort are always linked.
   */
  private async linked<O extends TransportCallOptions>(
    options: O,
    run: (options: O) => Promise<TaskResult>,
  ): Promise<TaskResult> {
    if (this.closing.signal.aborted) throw this.closing.signal.reason;
    if (options.signal === undefined && options.onProgress === undefined) return run(options);
    const link = linkSignal(options.signal, this.closing.signal);
    try {
      return await run({ ...options, signal: link.signal });
    } finally {
      link.dispose();
    }
  }

  private request(
    endpoint: A2AEndpoint,
    method: string,
    params: unknown,
    options: TransportCallOptions,
    tool: string | undefined,
  ): RpcRequest {
    checkTargetAddress(endpoint.url, this.options.url, this.credentialOrigins, {
      allowPrivate: this.options.allowPrivateCardTargets === true,
      tool: tool ?? method,
    });
    checkCredentialOrigin(endpoint.url, this.options.headers ?? {}, this.credentialOrigins, tool ?? method);
    return {
      url: endpoint.url,
      method,
      params,
      headers: { ...this.options.headers, ...wireHeaders(endpoint.wire, { plain: this.plain }) },
      fetch: this.fetch,
      maxBytes: options.maxBytes ?? this.options.maxBytes,
      signal: options.signal,
      tool: tool ?? method,
    };
  }

  /**
   * Runs `run` on the current endpoint. On `VERSION_NOT_SUPPORTED` (or `method not found` when
   * the wire was guessed) an unpinned client switches to v0.3 once, for good; a call that raced
   * with the switch simply runs again on the new endpoint.
   */
  private async withFallback(
    target: Target,
    tool: string | undefined,
    run: (endpoint: A2AEndpoint) => Promise<Outcome>,
  ): Promise<TaskResult> {
    const used = target.endpoint;
    let outcome = await run(used);
    if (outcome.kind === 'rpc-error' && this.isVersionRefusal(target, used, outcome.error)) {
      if (target.endpoint === used) target.endpoint = legacyEndpoint(target);
      outcome = await run(target.endpoint);
    }
    if (outcome.kind === 'result') return outcome.result;
    return rpcErrorToResult(outcome.error, outcome.endpoint, tool, this.wirePin);
  }

  private isVersionRefusal(target: Target, used: A2AEndpoint, error: RpcErrorObject): boolean {
    if (this.pin !== 'auto' || used.wire !== '1.0') return false;
    return error.code === VERSION_NOT_SUPPORTED || (target.guessed && error.code === -32601);
  }

  private async once(request: RpcRequest, target: Target, endpoint: A2AEndpoint): Promise<Outcome> {
    const reply = await callJsonRpc(request);
    if (!reply.ok) return { kind: 'rpc-error', error: reply.error, endpoint };
    if (!this.plain && isProfiled(target.lookup, endpoint)) {
      const kind = request.method === A2A_METHODS['1.0'].send ? 'send' : 'task';
      assertProfileAnswer(reply.result, kind, { url: request.url, tool: request.tool ?? request.method });
    }
    const event = classifyEvent(reply.result);
    if (event.kind === 'malformed') throw protocolError(request, `answered with a malformed result (${event.reason})`);
    if (event.kind === 'statusUpdate' || event.kind === 'artifactUpdate') {
      throw protocolError(request, `answered with a ${event.kind} instead of a Task`);
    }
    return { kind: 'result', result: this.build(reply.result, target, request) };
  }

  /** Reads the SSE stream: every event through the snapshot and out as progress; the final state is the result. */
  private async stream(
    request: RpcRequest,
    target: Target,
    endpoint: A2AEndpoint,
    onProgress: ((event: ProgressEvent) => void) | undefined,
  ): Promise<Outcome> {
    const snapshot = new TaskSnapshot();
    let count = 0;
    for await (const reply of streamJsonRpc(request)) {
      if (!reply.ok) {
        if (count === 0) return { kind: 'rpc-error', error: reply.error, endpoint };
        const failed = taskResultFromJsonRpcError(reply.error, { protocol: 'a2a' });
        if (failed !== null) return { kind: 'result', result: failed };
        throw protocolError(request, `failed mid-stream with JSON-RPC error ${reply.error.code}`);
      }
      count++;
      const event = classifyEvent(reply.result);
      if (event.kind === 'malformed') throw protocolError(request, `sent a malformed stream event (${event.reason})`);
      if (event.kind === 'message') continue; // out-of-band agent message: not task state (a2a-guide.md)
      snapshot.apply(event);
      onProgress?.(progressFromEvent(event, snapshot));
      if (snapshot.final) break;
    }
    if (snapshot.status === undefined) throw protocolError(request, 'ended the stream without a task status');
    if (!this.plain && isProfiled(target.lookup, endpoint)) {
      assertProfileAnswer(snapshot.toTask(), 'task', { url: request.url, tool: request.tool ?? request.method });
    }
    return { kind: 'result', result: this.build(snapshot.toTask(), target, request) };
  }

  /** Core's TaskResult plus the card-based checks; core's errors get this request's URL and tool. */
  private build(input: unknown, target: Target, request: RpcRequest): TaskResult {
    try {
      return resultFromA2A(input, { allowedOrigins: target.allowedOrigins });
    } catch (error) {
      if (error instanceof AdcpWireError && error.url === undefined) {
        throw new AdcpWireError(error.code, `${request.tool ?? request.method} at ${request.url}: ${error.message}`, {
          url: request.url,
          ...(request.tool === undefined ? {} : { tool: request.tool }),
          cause: error,
        });
      }
      throw error;
    }
  }

  private resolve(options: TransportCallOptions): Promise<Target> {
    if (this.target === undefined) {
      const pending = resolveTarget(this.resolveOptions(options));
      this.target = pending;
      // A failed discovery (network down, aborted, bad card) is tried again on the next call.
      pending.catch(() => {
        if (this.target === pending) this.target = undefined;
      });
    }
    return this.target;
  }

  private resolveOptions(options: TransportCallOptions): ResolveOptions {
    return {
      url: this.options.url,
      pin: this.wirePin,
      fetch: this.fetch,
      headers: this.options.headers ?? {},
      maxBytes: options.maxBytes ?? this.options.maxBytes,
      signal: options.signal,
    };
  }
}

function protocolError(request: RpcRequest, what: string): AdcpWireError {
  return new AdcpWireError('protocol', `${request.tool ?? request.method} at ${request.url} ${what}`, {
    url: request.url,
    ...(request.tool === undefined ? {} : { tool: request.tool }),
  });
}
