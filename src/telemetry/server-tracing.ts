import type { IncomingMessage, ServerResponse } from 'node:http';
import { emitActivity, type ActivityListener } from './activity.js';
import { ADCP_ATTR, safeId } from './attributes.js';
import { meters } from './metrics.js';
import { activeTraceId } from './otel.js';
import { extractTraceContext } from './propagation.js';
import { addActiveEvent, inSpan } from './span.js';

const ACTIVITY = Symbol.for('adcp-wire.on-activity');

/** Returns `tool` carrying the server's `onActivity`, which `traceInvocation` reads back. */
export function withActivity<T extends object>(tool: T, listener: ActivityListener | undefined): T {
  return listener === undefined ? tool : { ...tool, [ACTIVITY]: listener };
}

function activityOf(tool: object): ActivityListener | undefined {
  return (tool as { [ACTIVITY]?: ActivityListener })[ACTIVITY];
}

/**
 * One HTTP request to the server: a SERVER span `{method} {route}` continuing the caller's W3C
 * trace context (`traceparent`/`tracestate`), with `http.request.method`, `url.path` (only for the
 * server's own `routes`), `http.route` and `http.response.status_code`.
 */
export function traceHttpServer(
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly string[],
  run: () => Promise<void>,
): Promise<void> {
  return inSpan(
    req.method ?? 'GET',
    () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const route = routes.includes(path) ? path : undefined;
      const parent = extractTraceContext(req.headers);
      return {
        kind: 'server',
        attributes: {
          'http.request.method': req.method ?? 'GET',
          'http.route': route,
          'url.path': route,
          'url.scheme': (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http',
          'network.protocol.name': 'http',
        },
        ...(parent === undefined ? {} : { parent }),
      };
    },
    async (span) => {
      try {
        await run();
      } finally {
        if (res.headersSent) span.set('http.response.status_code', res.statusCode);
        if (res.headersSent && res.statusCode >= 500) span.fail(String(res.statusCode));
      }
    },
  );
}

/** What `invokeTool` answers: the flat AdCP body and whether it is an error. */
interface Answer {
  body: Record<string, unknown>;
  isError: boolean;
}

/**
 * One tool invocation on the server: a SERVER span `tools/call {tool}` (MCP semantic conventions)
 * or `SendMessage {tool}` (A2A, JSON-RPC), with `adcp.status`, `adcp.task_id` and
 * `adcp.error.code` of the answer, the `adcp.server.invocation.duration` histogram (its count
 * is the invocations), and a request and a response activity event for the server's `onActivity`.
 */
export function traceInvocation<T extends Answer>(
  tool: { name: string },
  protocol: 'mcp' | 'a2a',
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const listener = activityOf(tool);
  const mcp = protocol === 'mcp';
  const method = mcp ? 'tools/call' : 'SendMessage';
  return inSpan(
    `${method} ${tool.name}`,
    () => ({
      kind: 'server',
      attributes: {
        [ADCP_ATTR.tool]: tool.name,
        [ADCP_ATTR.protocol]: protocol,
        'mcp.method.name': mcp ? method : undefined,
        'rpc.system.name': mcp ? undefined : 'jsonrpc',
        'rpc.method': mcp ? undefined : method,
        'gen_ai.tool.name': tool.name,
        'gen_ai.operation.name': 'execute_tool',
      },
    }),
    async (span) => {
      emitActivity(listener, {
        type: 'request',
        at: Date.now(),
        side: 'server',
        tool: tool.name,
        protocol,
        ...traceIdOf(),
      });
      const answer = await run();
      const status = typeof answer.body['status'] === 'string' ? answer.body['status'] : 'completed';
      const error = answer.body['adcp_error'];
      const code =
        answer.isError && error !== null && typeof error === 'object'
          ? safeId((error as Record<string, unknown>)['code'])
          : undefined;
      const taskId = safeId(answer.body['task_id']);
      span.set(ADCP_ATTR.status, safeId(status));
      span.set(ADCP_ATTR.taskId, taskId);
      if (code !== undefined) {
        span.set(ADCP_ATTR.errorCode, code);
        span.fail(code);
      }
      const m = meters();
      if (m !== undefined) {
        const labels = { [ADCP_ATTR.tool]: tool.name, [ADCP_ATTR.status]: safeId(status) ?? 'unknown' };
        m.serverInvocationDuration.record(
          (performance.now() - started) / 1000,
          code === undefined ? labels : { ...labels, [ADCP_ATTR.errorCode]: code },
        );
      }
      emitActivity(listener, {
        type: 'response',
        at: Date.now(),
        side: 'server',
        tool: tool.name,
        protocol,
        status: safeId(status) ?? 'unknown',
        durationMs: performance.now() - started,
        ...(taskId === undefined ? {} : { taskId }),
        ...(code === undefined ? {} : { errorCode: code }),
        ...traceIdOf(),
      });
      return answer;
    },
  );
}

/** The request check's outcome, as an `adcp.validation` event on the invocation span. */
export function noteValidation(error: { code?: unknown } | undefined): void {
  addActiveEvent('adcp.validation', { ok: error === undefined, [ADCP_ATTR.errorCode]: safeId(error?.code) });
}

/**
 * The seller's handler itself: a span `adcp.handler {tool}`; an answer the idempotency layer
 * replayed (`replayed: true`) is marked `adcp.idempotency.replayed` with an event.
 */
export function traceHandler<T>(toolName: string, run: () => Promise<T>): Promise<T> {
  return inSpan(
    `adcp.handler ${toolName}`,
    () => ({ attributes: { [ADCP_ATTR.tool]: toolName } }),
    async (span) => {
      const body = await run();
      if (
        span.recording &&
        body !== null &&
        typeof body === 'object' &&
        (body as { replayed?: unknown }).replayed === true
      ) {
        span.set('adcp.idempotency.replayed', true);
        span.event('adcp.idempotency.replay');
      }
      return body;
    },
  );
}

function traceIdOf(): { traceId?: string } {
  const traceId = activeTraceId();
  return traceId === undefined ? {} : { traceId };
}
