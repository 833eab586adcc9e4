import type { TaskResult } from '../core/task-result.js';
import type { JsonObject } from '../core/types.js';
import { isPlainObject } from '../core/plain-object.js';
import { AdcpWireError } from '../core/wire-error.js';
import type { AdcpClientOptions, CallOptions, Clock, RetryOptions, WaitOptions } from './client-options.js';
import { createClock } from './clock.js';
import { createSigningFetch } from '../signing/signing-fetch.js';
import { Deadline, deadlineSignal } from '../transport/deadline-signal.js';
import { credentialOriginsOf } from '../core/credential-origins.js';
import { createTransport } from './create-transport.js';
import { discoverAgent, type DiscoverResult } from './discover.js';
import { checkIdempotencyKeyArg, prepareArgs } from './idempotency.js';
import {
  advanceOperation,
  OPEN_STATUSES,
  operationIdFor,
  recordOperation,
  resultFromOperation,
  type OperationRef,
} from './record-operation.js';
import type { OperationRecord, OperationStore } from '../store/types.js';
import { withRetry } from './retry.js';
import type { AdcpTransport, ToolInfo, TransportCallOptions, TransportOptions } from '../transport/transport.js';
import type { AdcpToolName, ToolArgs, ToolResponse } from '../schemas/tool-types.js';
import type { AdcpValidator } from '../schemas/adcp-validator.js';
import { parseWireVersion } from '../schemas/release.js';
import { DEFAULT_RELEASE } from '../schemas/supported-releases.js';
import { AdcpVersionError, chooseRelease, releasesUpTo } from './negotiate-release.js';
import { AdcpValidationError } from './validation-error.js';
import { statusToolFor, waitForResult, type WaitContext } from './wait-for.js';
import { throwIfUnknownTask, unwrapPolledResult } from './unwrap-polled-result.js';
import { checkActivityListener } from '../telemetry/activity.js';
import { traceAttempt, traceClientCall } from '../telemetry/client-tracing.js';
import { propagatingFetch } from '../telemetry/traced-fetch.js';
import { traceStore } from '../telemetry/traced-store.js';
import { traceDiscover, tracePoll, traceWaitFor } from '../telemetry/wait-tracing.js';

/**
 * The schema validators load on first use: a client that does not validate (most first calls in
 * a short-lived process) never pays for their modules. The module is imported once, not per call:
 * with an ESM loader hook registered (tsx, OpenTelemetry's instrumentation, test runners) every
 * `import()` is a round trip to the hooks thread, about 0.5 ms, twice per validated call.
 */
let validatorModule: Promise<typeof import('../schemas/adcp-validator.js')> | undefined;
async function loadValidator(release: string): Promise<AdcpValidator> {
  validatorModule ??= import('../schemas/adcp-validator.js');
  return (await validatorModule).getValidator(release);
}

export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_CALL_TIMEOUT_MS = 300_000;

/**
 * Calls one AdCP agent over MCP or A2A and hands back one `TaskResult` per call, whatever the
 * agent did. Adds `idempotency_key` to mutating calls (the same key on every retry), retries
 * transient failures within ceilings, follows async work with `waitFor`, and records pending
 * work in an operations store when given one. One connection per client; `close()` ends it.
 */
export class AdcpClient {
  readonly url: string;
  readonly #options: AdcpClientOptions;
  readonly #transportOptions: TransportOptions;
  readonly #clock: Clock;
  #transport: Promise<AdcpTransport> | undefined;
  #tools: Promise<ToolInfo[]> | undefined;
  #release: Promise<string> | undefined;
  readonly #pin: string;
  readonly #validate: 'request' | 'response' | 'both' | 'off';
  /** Learn the agent's release before the first call: `negotiate`, by default on when validating. */
  readonly #negotiate: boolean;
  /** The releases this client speaks (its pin and the supported ones below it in its major). */
  readonly #spoken: readonly string[];
  /**
   * Each release's validator, looked up once per client: the lookup reads the environment's
   * search path and a map by a key built from it, twice per validated call otherwise.
   */
  readonly #validators = new Map<string, AdcpValidator>();
  #closed = false;

  constructor(options: AdcpClientOptions) {
    if (options === null || typeof options !== 'object')
      throw new TypeError('AdcpClient: pass { url, protocol } or { transport }');
    if (options.transport !== undefined) checkTransport(options);
    const url = options.url ?? options.transport?.url;
    if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new TypeError(`AdcpClient: url must be an absolute http(s) URL, got ${String(url)}`);
    }
    const protocol = options.protocol ?? 'auto';
    if (protocol !== 'mcp' && protocol !== 'a2a' && protocol !== 'auto') {
      throw new TypeError(`AdcpClient: protocol must be 'mcp', 'a2a' or 'auto', got ${String(protocol)}`);
    }
    checkPositive('maxResponseBytes', options.maxResponseBytes);
    checkPositive('timeoutMs', options.timeoutMs);
    const validate = options.validate ?? 'off';
    if (!['request', 'response', 'both', 'off'].includes(validate)) {
      throw new TypeError(
        `AdcpClient: validate must be 'request', 'response', 'both' or 'off', got ${String(validate)}`,
      );
    }
    this.#validate = validate;
    // Validating against a release the agent does not speak reports false errors (a 3.0 answer
    // has no cache_scope): a validating client learns the release unless told not to.
    this.#negotiate = options.negotiate === undefined ? validate !== 'off' : options.negotiate === true;
    this.#pin = options.adcpVersion ?? DEFAULT_RELEASE;
    if (parseWireVersion(this.#pin) === undefined) {
      throw new TypeError(`AdcpClient: adcpVersion must be release precision such as "3.1", got ${String(this.#pin)}`);
    }
    this.#spoken = releasesUpTo(this.#pin);
    this.url = url;
    checkActivityListener('AdcpClient', options.onActivity);
    this.#options =
      options.operations === undefined
        ? options
        : { ...options, operations: traceStore(options.operations, 'operations') };
    this.#clock = createClock(options.clock);
    const headers: Record<string, string> = { ...options.headers };
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' || /[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
        throw new TypeError(
          `AdcpClient: header ${JSON.stringify(name)} must be a valid name with a string value without line breaks`,
        );
      }
    }
    if (options.auth !== undefined) {
      if (typeof options.auth !== 'string' || /[\r\n]/.test(options.auth) || options.auth === '') {
        throw new TypeError('AdcpClient: auth must be a non-empty bearer token without line breaks');
      }
      headers['authorization'] = `Bearer ${options.auth}`;
    }
    this.#transportOptions = {
      url,
      headers,
      maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    };
    // Signing and trace propagation wrap the user's fetch, or else each transport's default one
    // (the global fetch for A2A, a fetch over node:http for MCP).
    const signing = options.signing;
    const wrap = (base: typeof fetch): typeof fetch =>
      propagatingFetch(signing === undefined ? base : createSigningFetch(base, signing));
    if (options.fetch !== undefined) this.#transportOptions.fetch = wrap(options.fetch);
    else this.#transportOptions.wrapFetch = wrap;
    if (options.a2aWire !== undefined) this.#transportOptions.a2aWire = options.a2aWire;
    if (options.mcpEra !== undefined) {
      if (!['auto', 'modern', 'legacy'].includes(options.mcpEra)) {
        throw new TypeError("AdcpClient: mcpEra must be 'auto', 'modern' or 'legacy'");
      }
      this.#transportOptions.mcpEra = options.mcpEra;
    }
    if (options.credentialOrigins !== undefined) {
      credentialOriginsOf(url, options.credentialOrigins); // TypeError now, not at the first call
      this.#transportOptions.credentialOrigins = options.credentialOrigins;
    }
    if (options.allowPrivateCardTargets !== undefined) {
      this.#transportOptions.allowPrivateCardTargets = options.allowPrivateCardTargets === true;
    }
  }

  /**
   * Calls `tool` with `args` and returns its TaskResult. Agent refusals are `failed`/`rejected`
   * results; only "could not talk or read" throws (`AdcpWireError`), and API misuse throws
   * `TypeError`/`RangeError` (`AdcpValidationError` for arguments that fail the request schema
   * with `validate: 'request'`, `continueTask` on MCP); no release in common with the agent is
   * an `AdcpVersionError`. Typed by tool name: for a known AdCP tool (`'get_products'`), `args` is
   * its request (`adcp_version`, `idempotency_key` optional: the client fills them in) and a
   * completed result's `data` its response (without the async and error arms, which never come
   * back `completed`), from the generated 3.1 types. A literal that is no AdCP tool name (a typo)
   * does not compile; a `string` variable (another agent's own tool: `const tool: string = ...`)
   * is untyped JSON. Every request carries `adcp_version` (the negotiated release). On A2A,
   * `returnImmediately` answers before the task ends and `continueTask` answers an
   * `input-required` task.
   */
  call<N extends AdcpToolName>(
    tool: N,
    args?: ToolArgs<N>,
    options?: CallOptions,
  ): Promise<TaskResult<ToolResponse<N>>>;
  call<S extends string>(tool: WideString<S>, args?: JsonObject, options?: CallOptions): Promise<TaskResult>;
  call(tool: string, args: JsonObject = {}, options: CallOptions = {}): Promise<TaskResult> {
    const trace = { url: this.url, tool: String(tool), onActivity: this.#options.onActivity };
    return traceClientCall(trace, () => this.#call(tool, args, options));
  }

  async #call(tool: string, args: JsonObject, options: CallOptions): Promise<TaskResult> {
    if (typeof tool !== 'string' || tool === '')
      throw new TypeError('AdcpClient.call: tool must be a non-empty string');
    if (!isPlainObject(args)) throw new TypeError(`AdcpClient.call(${tool}): args must be a plain object`);
    if (
      options.idempotencyKey !== undefined &&
      (typeof options.idempotencyKey !== 'string' || options.idempotencyKey === '')
    ) {
      throw new TypeError(`AdcpClient.call(${tool}): idempotencyKey must be a non-empty string`);
    }
    if (options.returnImmediately !== undefined && typeof options.returnImmediately !== 'boolean') {
      throw new TypeError(`AdcpClient.call(${tool}): returnImmediately must be true or false`);
    }
    if (
      options.continueTask !== undefined &&
      (typeof options.continueTask !== 'string' || options.continueTask === '')
    ) {
      throw new TypeError(
        `AdcpClient.call(${tool}): continueTask must be the transportTaskId of an input-required result`,
      );
    }
    checkPositive('maxResponseBytes', options.maxResponseBytes);
    checkPositive('timeoutMs', options.timeoutMs);
    checkTask(tool, options.task);
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const startedAt = this.#clock.now();
    const deadline = deadlineSignal(timeoutMs, options.signal, `${tool} at ${this.url}`);
    try {
      const transport = await this.#transportFor(deadline);
      if (options.continueTask !== undefined && transport.protocol !== 'a2a') {
        throw new TypeError(
          `AdcpClient.call(${tool}): continueTask is A2A only, and ${this.url} speaks ${transport.protocol}`,
        );
      }
      if (options.task !== undefined && transport.protocol !== 'mcp') {
        throw new TypeError(
          `AdcpClient.call(${tool}): task (MCP Tasks) is MCP only, and ${this.url} speaks ${transport.protocol}; every A2A call is a task already (use returnImmediately, then waitFor)`,
        );
      }
      checkIdempotencyKeyArg(tool, args);
      const releasing = this.#releaseFor(tool, deadline);
      const release = typeof releasing === 'string' ? releasing : await releasing;
      const prepared = prepareArgs(tool, args, {
        idempotencyKey: options.idempotencyKey,
        omitIdempotencyKey: options.omitIdempotencyKey,
        context: options.context,
        protocol: transport.protocol,
        release,
      });
      withRelease(prepared.args, release);
      if (this.#validate === 'request' || this.#validate === 'both') {
        const checked = (this.#validators.get(release) ?? (await this.#validatorFor(release))).request(
          tool,
          prepared.args,
        );
        if (!checked.ok) throw new AdcpValidationError(tool, release, checked.issues);
      }
      // The deadline's AbortSignal is made only if something reads `signal` (see `Deadline`).
      const callOptions: TransportCallOptions = {
        get signal() {
          return deadline.signal;
        },
        deadline,
        maxBytes: options.maxResponseBytes ?? this.#transportOptions.maxBytes,
      };
      if (options.task !== undefined) callOptions.task = options.task;
      if (options.contextId !== undefined && transport.protocol === 'a2a') callOptions.contextId = options.contextId;
      if (options.returnImmediately === true && transport.protocol === 'a2a') callOptions.returnImmediately = true;
      if (options.continueTask !== undefined) callOptions.continueTask = options.continueTask;
      if (options.onProgress !== undefined) callOptions.onProgress = options.onProgress;
      const retry: RetryOptions | false = options.retry ?? this.#options.retry ?? {};
      const trace = { url: this.url, tool, protocol: transport.protocol, onActivity: this.#options.onActivity };
      const attempt = (n: number) =>
        traceAttempt({ ...trace, attempt: n }, () => transport.callTool(tool, prepared.args, callOptions));
      const result = await withRetry(attempt, retry, this.#clock, {
        get signal() {
          return deadline.signal;
        },
        deadlineAt: startedAt + timeoutMs,
        onRetry: options.onRetry,
      });
      if (result.status === 'submitted' || result.status === 'working') await this.#record(tool, prepared.args, result);
      if ((this.#validate === 'response' || this.#validate === 'both') && result.data !== undefined) {
        const served = this.#servedRelease(result.data, release);
        const validator = this.#validators.get(served) ?? (await this.#validatorFor(served));
        checkResponse(validator, tool, served, result.data, result);
      }
      return result;
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Follows a `submitted`/`working` result to a final state, or to `input-required`/
   * `auth-required`, which return to the caller (see `waitForResult`). A result that is already
   * settled comes back as is. `target` is a result, or (with an `operations` store) an operation
   * record or its id: after a restart, resume with `resumeOpenOperations()` then `waitFor(record)`.
   * A result recorded as an operation keeps it (`result.operation`): polls that name another task
   * type are refused, and the store follows every poll.
   */
  waitFor<T = JsonObject>(target: TaskResult<T>, options?: WaitOptions): Promise<TaskResult<T>>;
  waitFor(target: TaskResult | OperationRecord | string, options?: WaitOptions): Promise<TaskResult>;
  waitFor(target: TaskResult | OperationRecord | string, options: WaitOptions = {}): Promise<TaskResult> {
    const start = typeof target === 'object' && target !== null && 'protocol' in target ? target : undefined;
    return traceWaitFor(this.url, start, () => this.#waitFor(target, options));
  }

  async #waitFor(target: TaskResult | OperationRecord | string, options: WaitOptions): Promise<TaskResult> {
    const result = await this.#resolveTarget(target);
    const ref = result.operation;
    if (ref !== undefined && ref.agent !== this.url) {
      throw new TypeError(`AdcpClient.waitFor: operation ${ref.operationId} belongs to ${ref.agent}, not ${this.url}`);
    }
    const store = this.#options.operations;
    let polls = 0;
    const context: WaitContext = {
      callOnce: async (tool, args, signal) => {
        const transport = await this.#transportFor(signal);
        const release = await this.#releaseFor(tool, signal);
        const prepared = prepareArgs(tool, args, { protocol: transport.protocol, release });
        withRelease(prepared.args, release);
        const poll = { url: this.url, tool, protocol: transport.protocol, attempt: ++polls };
        return tracePoll({ ...poll, onActivity: this.#options.onActivity }, () =>
          transport.callTool(tool, prepared.args, { signal, maxBytes: this.#transportOptions.maxBytes }),
        );
      },
      onActivity: this.#options.onActivity,
      toolNames: async (signal) => new Set((await this.#toolList(signal)).map((t) => t.name)),
      transport: () => this.#transportFor(),
      clock: this.#clock,
      maxBytes: this.#transportOptions.maxBytes,
    };
    if (ref !== undefined) context.taskType = ref.taskType;
    if (store !== undefined && ref !== undefined) {
      context.onPolled = (polled) => advanceOperation(store, ref, polled, this.#clock.now());
    }
    const final = await waitForResult(context, result, options);
    if (ref !== undefined) final.operation = ref;
    return final;
  }

  /**
   * One look at an AdCP task: the task-status tool the agent lists (`get_task_status`, else the
   * legacy `tasks/get` or `tasks_get`) with `include_result`, unwrapped to the task's own status
   * and result. Not retried: a poll is cheap to repeat.
   */
  async getTaskStatus(taskId: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<TaskResult> {
    if (typeof taskId !== 'string' || taskId === '')
      throw new TypeError('AdcpClient.getTaskStatus: taskId must be a non-empty string');
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const deadline = deadlineSignal(timeoutMs, options.signal, `task status at ${this.url}`);
    try {
      const names = await this.#toolList(deadline.signal).then(
        (tools) => new Set(tools.map((t) => t.name)),
        () => undefined,
      );
      const tool = statusToolFor(names);
      const polled = await this.call(
        tool,
        { task_id: taskId, include_result: true },
        { retry: false, signal: deadline.signal, timeoutMs },
      );
      throwIfUnknownTask(polled, taskId, tool, this.url);
      return unwrapPolledResult(polled);
    } finally {
      deadline.dispose();
    }
  }

  /**
   * One look at a transport task (`result.transportTaskId`): an A2A task (`GetTask`, v0.3
   * `tasks/get`) or an MCP Task (`tasks/get`, then `tasks/result` once it ended), as a TaskResult.
   * An unknown id is the agent's refusal (a `failed` result or `AdcpWireError('not_found')`).
   * Not retried. For an AdCP `task_id`, use `getTaskStatus`.
   */
  getTransportTask(taskId: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<TaskResult> {
    return this.#onTransportTask('getTransportTask', taskId, options, (transport, callOptions) => {
      if (transport.getTask === undefined)
        throw new TypeError(`AdcpClient.getTransportTask: this ${transport.protocol} transport has no tasks to read`);
      return transport.getTask(taskId, callOptions);
    });
  }

  /**
   * Cancels a transport task (A2A `CancelTask`, MCP `tasks/cancel`); AdCP itself has no cancel
   * task. The answer is the task as the agent left it: `canceled` when it took the cancellation.
   * Not retried.
   */
  cancelTransportTask(taskId: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<TaskResult> {
    return this.#onTransportTask('cancelTransportTask', taskId, options, (transport, callOptions) => {
      if (transport.cancelTask === undefined)
        throw new TypeError(`AdcpClient.cancelTransportTask: this ${transport.protocol} transport cannot cancel tasks`);
      return transport.cancelTask(taskId, callOptions);
    });
  }

  async #onTransportTask(
    method: string,
    taskId: string,
    options: { signal?: AbortSignal; timeoutMs?: number },
    act: (transport: AdcpTransport, callOptions: TransportCallOptions) => Promise<TaskResult>,
  ): Promise<TaskResult> {
    if (typeof taskId !== 'string' || taskId === '')
      throw new TypeError(`AdcpClient.${method}: taskId must be the transportTaskId of a result`);
    checkPositive('timeoutMs', options.timeoutMs);
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const deadline = deadlineSignal(timeoutMs, options.signal, `task ${taskId} at ${this.url}`);
    try {
      const transport = await this.#transportFor(deadline.signal);
      return await act(transport, { signal: deadline.signal, maxBytes: this.#transportOptions.maxBytes });
    } finally {
      deadline.dispose();
    }
  }

  /** The operation id a pending result was recorded under (`result.operation.operationId`). */
  operationIdOf(result: TaskResult): string | undefined {
    return result.operation?.operationId;
  }

  /**
   * The operations of this agent still in flight in the `operations` store (`submitted`,
   * `working`, `input-required`, `auth-required`), oldest first: after a restart, pass each to
   * `waitFor`. Throws a TypeError when the client has no `operations` store.
   */
  async resumeOpenOperations(options: { limit?: number } = {}): Promise<OperationRecord[]> {
    const store = this.#operationStore('resumeOpenOperations');
    return store.list({
      agent: this.url,
      statuses: [...OPEN_STATUSES],
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
    });
  }

  #operationStore(method: string): OperationStore {
    const store = this.#options.operations;
    if (store === undefined) throw new TypeError(`AdcpClient.${method}: pass an \`operations\` store to the client`);
    return store;
  }

  async #resolveTarget(target: TaskResult | OperationRecord | string): Promise<TaskResult> {
    if (typeof target === 'string') {
      const record = await this.#operationStore('waitFor').get(target);
      if (record === undefined)
        throw new RangeError(`AdcpClient.waitFor: no operation ${target} in the operations store`);
      target = record;
    }
    if (target === null || typeof target !== 'object') {
      throw new TypeError('AdcpClient.waitFor: pass a TaskResult, an operation record or an operation id');
    }
    if ('operationId' in target && 'statusAt' in target) {
      const protocol = (await this.#transportFor()).protocol;
      return resultFromOperation(target, protocol);
    }
    return target;
  }

  /**
   * What the agent says about itself: its card (MCP server card or A2A agent card, problems
   * reported not thrown), its `get_adcp_capabilities` answer, and its tools with `taskSupport`.
   */
  discover(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<DiscoverResult> {
    return traceDiscover(this.url, () => this.#discover(options));
  }

  async #discover(options: { signal?: AbortSignal; timeoutMs?: number }): Promise<DiscoverResult> {
    const deadline = deadlineSignal(
      options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      options.signal,
      `discover ${this.url}`,
    );
    try {
      const transport = await this.#transportFor(deadline.signal);
      return await discoverAgent({
        transport,
        signal: deadline.signal,
        maxBytes: this.#transportOptions.maxBytes,
        tools: () => this.#toolList(deadline.signal),
        capabilities: () => this.call('get_adcp_capabilities', {}, { signal: deadline.signal, retry: false }),
      });
    } finally {
      deadline.dispose();
    }
  }

  /** Closes the connection; later calls are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const transport = this.#transport;
    this.#transport = undefined;
    if (transport !== undefined) await (await transport.catch(() => undefined))?.close();
  }

  /** The transport, created on first use (`until` bounds the creating: a signal, or a deadline read only then). */
  #transportFor(until?: AbortSignal | Deadline): Promise<AdcpTransport> {
    if (this.#closed) return Promise.reject(new TypeError(`AdcpClient for ${this.url} is closed`));
    if (this.#transport === undefined) {
      const given = this.#options.transport;
      const signal = until instanceof Deadline ? until.signal : until;
      const creating =
        given !== undefined
          ? Promise.resolve(given)
          : createTransport(this.#options.protocol ?? 'auto', this.#transportOptions, signal);
      this.#transport = creating;
      void creating.catch(() => {
        if (this.#transport === creating) this.#transport = undefined;
      });
    }
    return this.#transport;
  }

  /** The agent's tools, listed once per client (a failed listing is tried again next time). */
  #toolList(signal?: AbortSignal): Promise<ToolInfo[]> {
    if (this.#tools === undefined) {
      const listing = this.#transportFor(signal).then((t) =>
        t.listTools(
          signal === undefined
            ? { maxBytes: this.#transportOptions.maxBytes }
            : { signal, maxBytes: this.#transportOptions.maxBytes },
        ),
      );
      this.#tools = listing;
      void listing.catch(() => {
        if (this.#tools === listing) this.#tools = undefined;
      });
    }
    return this.#tools;
  }

  /**
   * The release this client speaks with the agent: its pin, narrowed once per client by the
   * agent's `get_adcp_capabilities` (versioning.md, "Bidirectional negotiation"). Throws
   * AdcpVersionError when the agent lists no release in common.
   */
  async negotiatedRelease(signal?: AbortSignal): Promise<string> {
    return this.#releaseFor('', signal);
  }

  /** The pin as is when there is nothing to learn (no promise, no tick per call), else the learning. */
  #releaseFor(tool: string, until?: AbortSignal | Deadline): string | Promise<string> {
    if (tool === 'get_adcp_capabilities' || !this.#negotiate) return this.#pin;
    if (this.#release === undefined) {
      const signal = until instanceof Deadline ? until.signal : until;
      const asked = signal === undefined ? { retry: false as const } : { retry: false as const, signal };
      const learning = this.call('get_adcp_capabilities', {}, asked).then(
        (caps) => {
          // VERSION_UNSUPPORTED lists the agent's releases in its details (authoritative for a retry).
          const error = caps.data?.['adcp_error'];
          const details =
            isPlainObject(error) && error['code'] === 'VERSION_UNSUPPORTED' ? error['details'] : undefined;
          if (isPlainObject(details)) {
            const chosen = chooseRelease(this.#pin, {
              adcp: { supported_versions: details['supported_versions'] ?? [] },
            });
            if (chosen.release === undefined)
              throw new AdcpVersionError(this.url, releasesUpTo(this.#pin), chosen.theirs);
            return chosen.release;
          }
          // An agent without a usable capabilities answer keeps the pin (fail-open, versioning.md).
          if (caps.status !== 'completed') return this.#pin;
          const chosen = chooseRelease(this.#pin, caps.data);
          if (chosen.release === undefined)
            throw new AdcpVersionError(this.url, releasesUpTo(this.#pin), chosen.theirs);
          return chosen.release;
        },
        (error: unknown) => {
          // No get_adcp_capabilities at all (the agent refused the tool): keep the pin, as above.
          if (error instanceof AdcpWireError && error.code === 'refused') return this.#pin;
          throw error;
        },
      );
      this.#release = learning;
      void learning.catch((error: unknown) => {
        if (!(error instanceof AdcpVersionError) && this.#release === learning) this.#release = undefined;
      });
    }
    return this.#release;
  }

  /** The release an answer is checked against: the one the agent says it served when we speak it, else ours. */
  #servedRelease(data: JsonObject, release: string): string {
    const echoed = data['adcp_version'];
    return typeof echoed === 'string' && this.#spoken.includes(echoed) ? echoed : release;
  }

  /** The release's validator, loaded and kept for this client's later calls. */
  async #validatorFor(release: string): Promise<AdcpValidator> {
    const validator = await loadValidator(release);
    this.#validators.set(release, validator);
    return validator;
  }

  /** Records a `submitted` or `working` result (the caller checks the status). */
  async #record(tool: string, args: JsonObject, result: TaskResult): Promise<void> {
    const ref: OperationRef = { operationId: operationIdFor(args, result), agent: this.url, taskType: tool };
    result.operation = ref;
    const store = this.#options.operations;
    if (store === undefined) return;
    try {
      await recordOperation(store, ref, result, this.#clock.now());
    } catch (error) {
      // The agent accepted the work; say how to get its answer again without doing it twice.
      const key =
        typeof args['idempotency_key'] === 'string'
          ? `; call again with idempotencyKey ${args['idempotency_key']} to replay it`
          : '';
      throw new AdcpWireError(
        'store',
        `${tool} at ${this.url} is ${result.status} (task ${result.taskId ?? 'unknown'}) but recording operation ${ref.operationId} failed${key}`,
        { cause: error, tool, url: this.url },
      );
    }
  }
}

/** Every request names the release it speaks (`adcp_version`, `adcp_major_version`), unless the caller did. */
function withRelease(args: JsonObject, release: string): void {
  if (args['adcp_version'] === undefined) args['adcp_version'] = release;
  if (args['adcp_major_version'] === undefined) args['adcp_major_version'] = parseWireVersion(release)?.major ?? 3;
}

/** Checks a final result's `data` against `release` and reports it on `result.validation`. */
function checkResponse(
  validator: AdcpValidator,
  tool: string,
  release: string,
  data: JsonObject,
  result: TaskResult,
): void {
  const checked =
    result.status === 'failed' && isPlainObject(data['adcp_error'])
      ? validator.schema('core/error.json', data['adcp_error'])
      : validator.result(tool, result.status, data);
  if (checked.schema === undefined) return;
  result.validation = {
    ok: checked.ok,
    release,
    schema: checked.schema,
    issues: checked.ok ? [] : checked.issues,
  };
}

/** A given transport must be one, and the options that shape a created transport stay off. */
function checkTransport(options: AdcpClientOptions): void {
  const transport = options.transport as Partial<AdcpTransport> | null;
  const methods = ['callTool', 'listTools', 'readCard', 'close'] as const;
  if (
    transport === null ||
    typeof transport !== 'object' ||
    (transport.protocol !== 'mcp' && transport.protocol !== 'a2a') ||
    methods.some((m) => typeof transport[m] !== 'function')
  ) {
    throw new TypeError(
      `AdcpClient: transport must be an AdcpTransport (protocol 'mcp' or 'a2a', ${methods.join(', ')}), such as createInMemoryTransport(server, { protocol })`,
    );
  }
  if (options.protocol !== undefined && options.protocol !== 'auto' && options.protocol !== transport.protocol) {
    throw new TypeError(`AdcpClient: protocol is '${options.protocol}' but the transport speaks ${transport.protocol}`);
  }
  const shaping = (
    ['headers', 'auth', 'fetch', 'signing', 'a2aWire', 'credentialOrigins', 'allowPrivateCardTargets'] as const
  ).filter((name) => options[name] !== undefined);
  if (shaping.length > 0) {
    throw new TypeError(
      `AdcpClient: ${shaping.join(', ')} shape the transport the client creates; with { transport }, give them to the transport`,
    );
  }
}

/** `task` is `{}` or `{ ttl }` with a whole number of milliseconds, on either MCP era (said before anything is sent). */
function checkTask(tool: string, task: unknown): void {
  if (task === undefined) return;
  const ttl = typeof task === 'object' && task !== null ? (task as { ttl?: unknown }).ttl : null;
  if (ttl === null || (ttl !== undefined && (!Number.isSafeInteger(ttl) || (ttl as number) <= 0))) {
    throw new RangeError(
      `AdcpClient.call(${tool}): task must be {} or { ttl } with ttl a positive whole number of milliseconds`,
    );
  }
}

function checkPositive(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(
      `AdcpClient: ${name} must be a positive number of ${name === 'timeoutMs' ? 'milliseconds' : 'bytes'}`,
    );
  }
}

/**
 * `S` when it is the wide `string` (a name held in a variable), `never` for a literal: a literal
 * must be an AdCP tool with its typed arguments (the first `call` overload), so neither a typo in
 * the name nor a wrong field falls through to the untyped overload.
 */
type WideString<S extends string> = string extends S ? S : never;
