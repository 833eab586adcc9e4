import type { IncomingMessage } from 'node:http';
import type { AdcpError, JsonObject } from '../../core/types.js';
import type { AdcpTaskRunner } from '../tasks/adcp-tasks.js';
import { isJsonObject } from '../../core/json-object.js';
import type { AdcpServing } from '../tools/adcp-serving.js';
import { adcpErrorFromThrown } from '../tools/tool-error.js';
import type { AdcpToolDefinition, ToolContext, WorkingProgress } from '../types.js';
import { noteValidation, traceHandler, traceInvocation } from '../../telemetry/server-tracing.js';

/** A finished AdCP answer, protocol-neutral: the flat body and whether it is an error answer. */
export interface AdcpAnswer {
  body: JsonObject;
  isError: boolean;
}

export interface InvokeInput {
  tool: AdcpToolDefinition;
  args: unknown;
  protocol: 'mcp' | 'a2a';
  principal: string;
  headers: IncomingMessage['headers'];
  signal: AbortSignal;
  runner: AdcpTaskRunner;
  /** The release answered when the server has no `serving` policy or the caller sent no object. */
  adcpVersion: string;
  /** Version negotiation and schema validation; without it nothing is negotiated or checked. */
  serving?: AdcpServing;
  /** Where `context.working` reports go (the A2A executor); without it they are dropped. */
  onWorking?: (message?: string, progress?: WorkingProgress) => void;
}

/**
 * Adds the envelope fields the producer owns (mcp-guide, "MCP Response Format"): `status`
 * (default `completed`, `failed` for an error), the caller's `context` echoed verbatim, and
 * `adcp_version`: the release actually served (versioning.md, step 4), never the caller's string.
 * An error answer also carries the error in the payload's `errors[]` unless the handler set it
 * (core/protocol-envelope.json: a fatal failure populates both; each response schema requires
 * `errors` when `status` is `failed`, and MCP clients check `structuredContent` against it).
 */
export function finishAnswer(body: JsonObject, args: JsonObject, adcpVersion: string): AdcpAnswer {
  const isError = isJsonObject(body.adcp_error);
  const out: JsonObject = { ...body };
  if (typeof out.status !== 'string') out.status = isError ? 'failed' : 'completed';
  if (isError && !Array.isArray(out.errors)) out.errors = [structuredClone(body.adcp_error) as JsonObject];
  if (isJsonObject(args.context)) out.context = args.context;
  else delete out.context;
  out.adcp_version = adcpVersion;
  return { body: out, isError };
}

/** An error answer with the given `adcp_error`. */
export function errorAnswer(error: AdcpError, args: unknown, adcpVersion: string): AdcpAnswer {
  return finishAnswer({ status: 'failed', adcp_error: error }, isJsonObject(args) ? args : {}, adcpVersion);
}

/**
 * Runs one tool handler: arguments must be a JSON object (envelope fields are passed through
 * untouched for the handler to use or ignore); with a `serving` policy the release is negotiated
 * and the arguments checked against its request schema first, and the answer after; a throw or
 * an abort becomes an error answer.
 */
export function invokeTool(input: InvokeInput): Promise<AdcpAnswer> {
  return traceInvocation(input.tool, input.protocol, () => runTool(input));
}

async function runTool(input: InvokeInput): Promise<AdcpAnswer> {
  const { tool, runner, serving } = input;
  let adcpVersion = input.adcpVersion;
  if (!isJsonObject(input.args)) {
    return errorAnswer(
      { code: 'INVALID_REQUEST', message: 'Arguments must be a JSON object.', recovery: 'correctable' },
      {},
      adcpVersion,
    );
  }
  const args = input.args;
  if (serving !== undefined) {
    const prepared = serving.prepare(tool.name, args, { validate: tool.validateRequest !== false });
    adcpVersion = prepared.release;
    noteValidation(prepared.error);
    if (prepared.error !== undefined) return errorAnswer(prepared.error, args, adcpVersion);
  }
  const context: ToolContext = {
    protocol: input.protocol,
    principal: input.principal,
    headers: input.headers,
    signal: input.signal,
    adcpVersion,
    webhooks: {
      reach: runner.webhooks.reach,
      challenge: (url, fields) =>
        runner.webhooks.challenge(url, fields, { protocol: input.protocol, signal: input.signal }),
    },
    working: async (message, progress) => {
      if (!input.signal.aborted) input.onWorking?.(message, progress);
    },
    submit: (work, options) =>
      runner.submit({
        principal: input.principal,
        taskType: tool.name,
        args,
        work,
        ...(options?.message === undefined ? {} : { message: options.message }),
        ...(options?.taskId === undefined ? {} : { taskId: options.taskId }),
      }),
  };
  try {
    const aborted = new Promise<never>((_, reject) => {
      if (input.signal.aborted) reject(input.signal.reason);
      input.signal.addEventListener('abort', () => reject(input.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    const body = await Promise.race([
      traceHandler(tool.name, () => Promise.resolve(tool.handler(args, context))),
      aborted,
    ]);
    if (!isJsonObject(body)) throw new TypeError(`tool ${tool.name} answered with something that is not a JSON object`);
    const answer = finishAnswer(body, args, adcpVersion);
    const invalid = serving?.checkAnswer(tool.name, answer.body, adcpVersion);
    return invalid === undefined ? answer : errorAnswer(invalid, args, adcpVersion);
  } catch (error) {
    if (input.signal.aborted && !(error instanceof Error && error.name === 'AdcpToolError')) {
      return errorAnswer(
        { code: 'SERVICE_UNAVAILABLE', message: 'The request timed out on the agent.', recovery: 'transient' },
        args,
        adcpVersion,
      );
    }
    return errorAnswer(adcpErrorFromThrown(error), args, adcpVersion);
  }
}

/** One terse human sentence for the text item / TextPart (transport-errors.md, "Terse text"). */
export function terseText(toolName: string, answer: AdcpAnswer): string {
  const body = answer.body;
  if (answer.isError && isJsonObject(body.adcp_error)) {
    const error = body.adcp_error;
    const retry = typeof error.retry_after === 'number' ? ` Retry in ${error.retry_after}s.` : '';
    return `${toolName} failed: ${String(error.code)}.${retry}`;
  }
  if (typeof body.message === 'string' && body.message !== '') return body.message;
  if (body.status === 'submitted' && typeof body.task_id === 'string')
    return `${toolName} submitted as task ${body.task_id}.`;
  return `${toolName}: ${String(body.status)}.`;
}
