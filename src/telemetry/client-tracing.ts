import type { TaskResult } from '../core/task-result.js';
import { emitActivity, type ActivityListener } from './activity.js';
import { ADCP_ATTR, safeId, urlAttributes } from './attributes.js';
import { meters } from './metrics.js';
import { activeTraceId, activeTracer } from './otel.js';
import { errorTypeOf, inSpan, type AttributeValue, type TelemetrySpan } from './span.js';

/** What the client's hooks know about the call they trace. */
export interface CallTrace {
  url: string;
  tool: string;
  onActivity?: ActivityListener | undefined;
}

/**
 * One `AdcpClient.call`: a span `adcp.call {tool}` around every attempt, with the answer's status,
 * task and operation ids and error code, and the `adcp.client.call.duration` histogram (by tool
 * and outcome; its count is the calls).
 */
export function traceClientCall(info: CallTrace, run: () => Promise<TaskResult>): Promise<TaskResult> {
  // Nothing registered: the call as it is, no span, no timing, no wrapper.
  if (activeTracer() === undefined && meters() === undefined) return run();
  const started = performance.now();
  return inSpan(
    `adcp.call ${info.tool}`,
    () => ({ attributes: callAttributes(info.url, info.tool) }),
    // One `then`, not an async function: no extra promise or tick per call.
    (span) =>
      run().then(
        (result) => {
          setResultAttributes(span, result);
          record(info.tool, result.status, started);
          return result;
        },
        (error: unknown) => {
          record(info.tool, 'error', started, errorTypeOf(error));
          throw error;
        },
      ),
  );
}

/**
 * Frozen attribute and label sets, built once per distinct key instead of once per call: a client
 * calls a few tools at one URL. Bounded: past 256 keys the set starts again.
 */
class FrozenSets<T> {
  readonly #known = new Map<string, Readonly<T>>();
  get(key: string, build: () => T): Readonly<T> {
    let found = this.#known.get(key);
    if (found === undefined) {
      if (this.#known.size >= 256) this.#known.clear();
      found = Object.freeze(build());
      this.#known.set(key, found);
    }
    return found;
  }
}

const callSets = new FrozenSets<Record<string, AttributeValue>>();
const labelSets = new FrozenSets<Record<string, string>>();
const attemptSets = new FrozenSets<Record<string, AttributeValue>>();

function callAttributes(url: string, tool: string): Readonly<Record<string, AttributeValue>> {
  return callSets.get(`${url} ${tool}`, () => ({ [ADCP_ATTR.tool]: tool, ...urlAttributes(url) }));
}

function record(tool: string, status: string, started: number, errorType?: string): void {
  const m = meters();
  if (m === undefined) return;
  const labels =
    errorType === undefined
      ? labelSets.get(`${tool} ${status}`, () => ({ [ADCP_ATTR.tool]: tool, [ADCP_ATTR.status]: status }))
      : { [ADCP_ATTR.tool]: tool, [ADCP_ATTR.status]: status, 'error.type': errorType };
  m.clientCallDuration.record((performance.now() - started) / 1000, labels);
}

/** Puts a result's status, ids and error code on `span` (identifiers only, sanitised). */
export function setResultAttributes(span: TelemetrySpan, result: TaskResult): void {
  if (!span.recording) return;
  span.set(ADCP_ATTR.status, result.status);
  span.set(ADCP_ATTR.protocol, result.protocol);
  span.set(ADCP_ATTR.taskId, safeId(result.taskId));
  span.set(ADCP_ATTR.operationId, safeId(result.operation?.operationId));
  if (result.status === 'failed' || result.status === 'rejected') {
    const code = safeId(result.error.code) ?? 'unknown';
    span.set(ADCP_ATTR.errorCode, code);
    span.fail(code);
  }
}

function withResultAttributes(span: TelemetrySpan, result: TaskResult): TaskResult {
  setResultAttributes(span, result);
  return result;
}

/** One attempt (or poll) on the wire. */
export interface AttemptTrace extends CallTrace {
  protocol: 'mcp' | 'a2a';
  attempt: number;
  poll?: boolean;
  /** The wire method when it is not the tool call itself (A2A `GetTask` while polling). */
  method?: string;
}

/**
 * One request of a call: an MCP `tools/call {tool}` client span (MCP semantic conventions:
 * `mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name`) or an A2A `SendMessage {tool}`
 * JSON-RPC client span, request and response activity events, and `adcp.client.retries` from the
 * second attempt on.
 */
export function traceAttempt(info: AttemptTrace, run: () => Promise<TaskResult>): Promise<TaskResult> {
  if (info.attempt > 1 && info.poll !== true) meters()?.clientRetries.add(1, { [ADCP_ATTR.tool]: info.tool });
  // No SDK and no listener: the attempt as it is.
  if (info.onActivity === undefined && activeTracer() === undefined) return run();
  const started = performance.now();
  const name = `${info.method ?? (info.protocol === 'mcp' ? 'tools/call' : 'SendMessage')} ${info.tool}`;
  const options = () => ({
    kind: 'client' as const,
    attributes: attemptSets.get(
      `${info.url} ${info.tool} ${info.protocol} ${info.method ?? ''} ${info.attempt} ${info.poll === true}`,
      () => attemptAttributes(info),
    ),
  });
  // Without a listener, one `then` (no async function: no extra promise or tick per attempt).
  if (info.onActivity === undefined) {
    return inSpan(name, options, (span) => run().then((result) => withResultAttributes(span, result)));
  }
  return inSpan(name, options, async (span) => {
    const base = { side: 'client' as const, tool: info.tool, protocol: info.protocol, attempt: info.attempt };
    const poll = info.poll === true ? { poll: true } : {};
    emitActivity(info.onActivity, { type: 'request', at: Date.now(), ...base, ...poll, ...traceIdOf() });
    try {
      const result = await run();
      setResultAttributes(span, result);
      const errorCode =
        result.status === 'failed' || result.status === 'rejected' ? safeId(result.error.code) : undefined;
      const taskId = safeId(result.taskId);
      emitActivity(info.onActivity, {
        type: 'response',
        at: Date.now(),
        ...base,
        ...poll,
        status: result.status,
        durationMs: performance.now() - started,
        ...(taskId === undefined ? {} : { taskId }),
        ...(errorCode === undefined ? {} : { errorCode }),
        ...traceIdOf(),
      });
      return result;
    } catch (error) {
      emitActivity(info.onActivity, {
        type: 'response',
        at: Date.now(),
        ...base,
        ...poll,
        status: 'error',
        durationMs: performance.now() - started,
        errorCode: errorTypeOf(error),
        ...traceIdOf(),
      });
      throw error;
    }
  });
}

/** The attempt span's attributes (MCP or JSON-RPC semantic conventions, and AdCP's own). */
function attemptAttributes(info: AttemptTrace): Record<string, AttributeValue> {
  const mcp = info.protocol === 'mcp';
  const method = info.method ?? (mcp ? 'tools/call' : 'SendMessage');
  const attributes: Record<string, AttributeValue> = {
    [ADCP_ATTR.tool]: info.tool,
    [ADCP_ATTR.protocol]: info.protocol,
    [ADCP_ATTR.attempt]: info.attempt,
    ...urlAttributes(info.url),
  };
  if (mcp) attributes['mcp.method.name'] = method;
  else {
    attributes['rpc.system.name'] = 'jsonrpc';
    attributes['rpc.method'] = method;
  }
  if (info.method === undefined) {
    attributes['gen_ai.tool.name'] = info.tool;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (info.poll === true) attributes['adcp.poll'] = true;
  return attributes;
}

function traceIdOf(): { traceId?: string } {
  const traceId = activeTraceId();
  return traceId === undefined ? {} : { traceId };
}
