import { AdcpWireError } from '../core/wire-error.js';
import type { JsonObject } from '../core/types.js';
import type { TaskResult } from '../core/task-result.js';
import type {
  AdcpTransport,
  CardInfo,
  ProgressEvent,
  ToolInfo,
  TransportCallOptions,
  TransportOptions,
} from '../client/transport.js';
import { callJsonRpc, streamJsonRpc, type RpcErrorObject, type RpcReply, type RpcRequest } from './json-rpc.js';
import { discoverCard, type CardLookup } from './discover-card.js';
import { listEndpoints, selectEndpoint, type A2AEndpoint, type A2AWire } from './select-interface.js';
import { METHODS, TASK_NOT_FOUND, VERSION_NOT_SUPPORTED, invocationParams, taskIdParams, wireHeaders } from './wire-methods.js';
import { TaskSnapshot, classifyEvent, isObject } from './task-snapshot.js';
import { progressFromEvent, resultFromA2A, resultFromRpcError } from './to-task-result.js';

/** Per-call options the A2A transport understands on top of the shared ones. */
export interface A2ACallOptions extends TransportCallOptions {
  /** Answer as soon as the agent has the task (1.0 `returnImmediately`, v0.3 `blocking: false`). */
  returnImmediately?: boolean;
  /** Continue this A2A task (the `transportTaskId` of an `input-required` result). */
  transportTaskId?: string;
  /** Add a display-only TextPart `AdCP task: <tool>` before the DataPart. */
  advisoryText?: boolean;
}

interface Target {
  endpoint: A2AEndpoint;
  lookup: CardLookup;
  /** Origins FilePart URLs and `challenge_url` may point at: the card's and its interfaces'. */
  allowedOrigins: string[];
  /** The wire was chosen without a card: a v0.3 server's `method not found` may also mean "try v0.3". */
  guessed: boolean;
}

/**
 * AdCP over A2A 1.0 and v0.3 with a hand-written JSON-RPC + SSE client over the injected
 * `fetch`: the card decides the wire (1.0 preferred; `a2aWire` pins it), a 1.0 request refused
 * with `VERSION_NOT_SUPPORTED` falls back to v0.3 once and the choice is kept for this client.
 */
export class A2ATransport implements AdcpTransport {
  readonly protocol = 'a2a' as const;
  private readonly options: TransportOptions;
  private readonly fetch: typeof fetch;
  private readonly pin: 'auto' | A2AWire;
  private target: Promise<Target> | undefined;
  private fellBack = false;
  private closed = false;

  constructor(options: TransportOptions) {
    if (typeof options.url !== 'string' || !/^https?:\/\//i.test(options.url)) {
      throw new TypeError(`createA2ATransport: url must be an http(s) URL, got ${String(options.url)}`);
    }
    if (!Number.isInteger(options.maxBytes) || options.maxBytes < 1) {
      throw new RangeError(`createA2ATransport: maxBytes must be a positive integer, got ${String(options.maxBytes)}`);
    }
    const pin = options.a2aWire ?? 'auto';
    if (pin !== 'auto' && pin !== '1.0' && pin !== '0.3') {
      throw new TypeError(`createA2ATransport: a2aWire must be 'auto', '1.0' or '0.3', got ${String(pin)}`);
    }
    this.options = options;
    this.pin = pin;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The wire and endpoint in use (after the first call). */
  async currentEndpoint(options: TransportCallOptions): Promise<A2AEndpoint> {
    return (await this.resolve(options)).endpoint;
  }

  async callTool(tool: string, args: JsonObject, options: A2ACallOptions): Promise<TaskResult> {
    if (typeof tool !== 'string' || tool === '') throw new TypeError('callTool: tool must be a non-empty string');
    const target = await this.resolve(options);
    const streaming = options.onProgress !== undefined && options.returnImmediately !== true && canStream(target.lookup);
    return this.withFallback(target, options, tool, (endpoint) => {
      const params = invocationParams(endpoint.wire, tool, args, {
        messageId: globalThis.crypto.randomUUID(),
        contextId: options.contextId,
        taskId: options.transportTaskId,
        returnImmediately: options.returnImmediately,
        advisoryText: options.advisoryText === true ? `AdCP task: ${tool}` : undefined,
      });
      const method = streaming ? METHODS[endpoint.wire].stream : METHODS[endpoint.wire].send;
      const request = this.request(endpoint, method, params, options, tool);
      return streaming ? this.stream(request, target, options.onProgress) : this.once(request, target);
    });
  }

  async getTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    return this.taskMethod('get', taskId, options);
  }

  async cancelTask(taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    return this.taskMethod('cancel', taskId, options);
  }

  async listTools(options: TransportCallOptions): Promise<ToolInfo[]> {
    const { lookup } = await this.resolve(options);
    if (!lookup.found) return [];
    const skills = lookup.card['skills'];
    const tools: ToolInfo[] = [];
    for (const skill of Array.isArray(skills) ? skills : []) {
      if (!isObject(skill) || typeof skill['id'] !== 'string' || skill['id'] === '') continue;
      const info: ToolInfo = { name: skill['id'] };
      if (typeof skill['description'] === 'string') info.description = skill['description'];
      tools.push(info);
    }
    return tools;
  }

  async readCard(options: TransportCallOptions): Promise<CardInfo> {
    const lookup = await this.lookupCard(options);
    if (lookup.found) return { url: lookup.url, card: lookup.card };
    if (lookup.problem === undefined) return {};
    return { ...(lookup.problemUrl === undefined ? {} : { url: lookup.problemUrl }), problem: lookup.problem };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private async taskMethod(which: 'get' | 'cancel', taskId: string, options: TransportCallOptions): Promise<TaskResult> {
    if (typeof taskId !== 'string' || taskId === '') throw new TypeError(`${which}Task: taskId must be a non-empty string`);
    const target = await this.resolve(options);
    return this.withFallback(target, options, undefined, (endpoint) =>
      this.once(this.request(endpoint, METHODS[endpoint.wire][which], taskIdParams(taskId), options, undefined), target),
    );
  }

  private request(endpoint: A2AEndpoint, method: string, params: unknown, options: TransportCallOptions, tool: string | undefined): RpcRequest {
    return {
      url: endpoint.url,
      method,
      params,
      headers: { ...this.options.headers, ...wireHeaders(endpoint.wire) },
      fetch: this.fetch,
      maxBytes: options.maxBytes ?? this.options.maxBytes,
      signal: options.signal,
      tool: tool ?? method,
    };
  }

  /** Runs `run` on the current endpoint; on `VERSION_NOT_SUPPORTED` switches to v0.3 once (auto only). */
  private async withFallback(
    target: Target,
    options: TransportCallOptions,
    tool: string | undefined,
    run: (endpoint: A2AEndpoint) => Promise<Outcome>,
  ): Promise<TaskResult> {
    if (this.closed) throw new AdcpWireError('protocol', `A2A transport for ${this.options.url} is closed`, { url: this.options.url });
    let outcome = await run(target.endpoint);
    if (outcome.kind === 'rpc-error' && this.shouldFallBack(target, outcome.error)) {
      const next = this.fallbackEndpoint(target);
      target.endpoint = next;
      this.fellBack = true;
      outcome = await run(next);
    }
    if (outcome.kind === 'result') return outcome.result;
    return this.rpcErrorResult(outcome.error, target, outcome.endpoint, tool);
  }

  private shouldFallBack(target: Target, error: RpcErrorObject): boolean {
    if (this.pin !== 'auto' || this.fellBack || target.endpoint.wire !== '1.0') return false;
    return error.code === VERSION_NOT_SUPPORTED || (target.guessed && error.code === -32601);
  }

  private fallbackEndpoint(target: Target): A2AEndpoint {
    if (target.lookup.found) {
      const legacy = listEndpoints(target.lookup.card, target.lookup.url).find((e) => e.wire === '0.3');
      if (legacy !== undefined) return legacy;
    }
    return { wire: '0.3', url: target.endpoint.url };
  }

  private rpcErrorResult(error: RpcErrorObject, target: Target, endpoint: A2AEndpoint, tool: string | undefined): TaskResult {
    const result = resultFromRpcError(error);
    if (result !== undefined) return result;
    const where = `${tool ?? 'A2A request'} at ${endpoint.url}`;
    const detail = `JSON-RPC error ${error.code}`;
    if (error.code === VERSION_NOT_SUPPORTED) {
      throw new AdcpWireError(
        'unsupported_version',
        `${where}: the agent does not accept A2A ${endpoint.wire} (${detail}, VERSION_NOT_SUPPORTED)` +
          (this.pin === 'auto' ? '' : `; this client is pinned to A2A ${this.pin}`),
        { url: endpoint.url, ...(tool === undefined ? {} : { tool }) },
      );
    }
    if (error.code === TASK_NOT_FOUND) {
      throw new AdcpWireError('not_found', `${where}: task not found (${detail})`, { url: endpoint.url, ...(tool === undefined ? {} : { tool }) });
    }
    throw new AdcpWireError('protocol', `${where}: ${detail}`, {
      url: endpoint.url,
      ...(tool === undefined ? {} : { tool }),
      cause: error,
      retryable: error.code === -32603,
    });
  }

  private async once(request: RpcRequest, target: Target): Promise<Outcome> {
    const reply = await callJsonRpc(request);
    if (!reply.ok) return { kind: 'rpc-error', error: reply.error, endpoint: target.endpoint };
    const event = classifyEvent(reply.result);
    if (event.kind === 'malformed') throw protocolError(request, `answered with a malformed result (${event.reason})`);
    if (event.kind === 'statusUpdate' || event.kind === 'artifactUpdate') {
      throw protocolError(request, `answered with a ${event.kind} instead of a Task`);
    }
    return { kind: 'result', result: this.build(reply.result, target, request) };
  }

  private async stream(request: RpcRequest, target: Target, onProgress: ((event: ProgressEvent) => void) | undefined): Promise<Outcome> {
    const snapshot = new TaskSnapshot();
    let count = 0;
    for await (const reply of streamJsonRpc(request)) {
      if (!reply.ok) {
        if (count === 0) return { kind: 'rpc-error', error: reply.error, endpoint: target.endpoint };
        return { kind: 'result', result: this.midStreamError(reply, target, request) };
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
    return { kind: 'result', result: this.build(snapshot.toTask(), target, request) };
  }

  private midStreamError(reply: Extract<RpcReply, { ok: false }>, target: Target, request: RpcRequest): TaskResult {
    const result = resultFromRpcError(reply.error);
    if (result !== undefined) return result;
    throw protocolError(request, `failed mid-stream with JSON-RPC error ${reply.error.code}`);
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
      this.target = this.discover(options);
      // A failed discovery (network down, aborted) is tried again on the next call.
      this.target.catch(() => {
        this.target = undefined;
      });
    }
    return this.target;
  }

  private async discover(options: TransportCallOptions): Promise<Target> {
    const lookup = await this.lookupCard(options);
    if (lookup.found) {
      const endpoint = selectEndpoint(lookup.card, lookup.url, this.pin);
      return { endpoint, lookup, allowedOrigins: originsOf(lookup.url, lookup.card), guessed: false };
    }
    if (lookup.problem !== undefined) {
      throw new AdcpWireError('protocol', `agent card at ${lookup.problemUrl ?? this.options.url} is unusable: ${lookup.problem}`, {
        url: lookup.problemUrl ?? this.options.url,
      });
    }
    // No card: the URL is the endpoint; speak the pinned wire, or 1.0 first.
    const wire: A2AWire = this.pin === '0.3' ? '0.3' : '1.0';
    return { endpoint: { wire, url: this.options.url }, lookup, allowedOrigins: [new URL(this.options.url).origin], guessed: true };
  }

  private lookupCard(options: TransportCallOptions): Promise<CardLookup> {
    return discoverCard(this.options.url, {
      fetch: this.fetch,
      headers: this.options.headers ?? {},
      maxBytes: options.maxBytes ?? this.options.maxBytes,
      version: this.pin === '0.3' ? '0.3' : '1.0',
      signal: options.signal,
    });
  }
}

type Outcome =
  | { kind: 'result'; result: TaskResult }
  | { kind: 'rpc-error'; error: RpcErrorObject; endpoint: A2AEndpoint };

function canStream(lookup: CardLookup): boolean {
  if (!lookup.found) return true;
  const capabilities = lookup.card['capabilities'];
  return !isObject(capabilities) || capabilities['streaming'] !== false;
}

/** The card's own origin plus the origins of its interfaces: never anything from a task payload. */
function originsOf(cardUrl: string, card: JsonObject): string[] {
  const origins = new Set<string>([new URL(cardUrl).origin]);
  for (const endpoint of listEndpoints(card, cardUrl)) origins.add(new URL(endpoint.url).origin);
  return [...origins];
}

function protocolError(request: RpcRequest, what: string): AdcpWireError {
  return new AdcpWireError('protocol', `${request.tool ?? request.method} at ${request.url} ${what}`, {
    url: request.url,
    ...(request.tool === undefined ? {} : { tool: request.tool }),
  });
}
