import type { TaskResult } from '../core/task-result.js';
import { emitActivity, type ActivityListener } from './activity.js';
import { ADCP_ATTR, safeId, urlAttributes } from './attributes.js';
import { setResultAttributes, traceAttempt } from './client-tracing.js';
import { meters } from './metrics.js';
import { activeTraceId } from './otel.js';
import { inSpan } from './span.js';

/**
 * `AdcpClient.waitFor`: a span `adcp.wait_for` from the first poll to the settled status, and the
 * `adcp.client.time_to_final` histogram (seconds, by tool and status).
 */
export function traceWaitFor(
  url: string,
  start: TaskResult | undefined,
  run: () => Promise<TaskResult>,
): Promise<TaskResult> {
  const started = performance.now();
  return inSpan(
    'adcp.wait_for',
    () => ({
      attributes: {
        [ADCP_ATTR.taskId]: safeId(start?.taskId),
        [ADCP_ATTR.operationId]: safeId(start?.operation?.operationId),
        [ADCP_ATTR.tool]: safeId(start?.operation?.taskType),
        ...urlAttributes(url),
      },
    }),
    async (span) => {
      const result = await run();
      setResultAttributes(span, result);
      const labels: Record<string, string> = { [ADCP_ATTR.status]: result.status };
      const tool = safeId(result.operation?.taskType ?? start?.operation?.taskType);
      if (tool !== undefined) labels[ADCP_ATTR.tool] = tool;
      meters()?.timeToFinal.record((performance.now() - started) / 1000, labels);
      return result;
    },
  );
}

/** One poll of a followed task (`get_task_status` or the transport's own task): counted, traced, reported. */
export function tracePoll(
  info: {
    url: string;
    tool: string;
    protocol: 'mcp' | 'a2a';
    attempt: number;
    method?: string;
    onActivity?: ActivityListener | undefined;
  },
  run: () => Promise<TaskResult>,
): Promise<TaskResult> {
  meters()?.clientPolls.add(1, { [ADCP_ATTR.tool]: info.tool });
  return traceAttempt({ ...info, poll: true }, run);
}

/** Reports a followed task's move from `from` to `result.status` (nothing when it did not move). */
export function reportStatusChange(listener: ActivityListener | undefined, from: string, result: TaskResult): void {
  if (listener === undefined || from === result.status) return;
  const traceId = activeTraceId();
  const taskId = safeId(result.taskId);
  const operationId = safeId(result.operation?.operationId);
  const tool = safeId(result.operation?.taskType);
  emitActivity(listener, {
    type: 'status_change',
    at: Date.now(),
    from,
    status: result.status,
    ...(taskId === undefined ? {} : { taskId }),
    ...(operationId === undefined ? {} : { operationId }),
    ...(tool === undefined ? {} : { tool }),
    ...(traceId === undefined ? {} : { traceId }),
  });
}

/** `AdcpClient.discover`: one `adcp.discover` span. */
export function traceDiscover<T>(url: string, run: () => Promise<T>): Promise<T> {
  return inSpan(
    'adcp.discover',
    () => ({ attributes: urlAttributes(url) }),
    () => run(),
  );
}
