import { printable } from './args.js';
import { safeJson } from './safe-json.js';
import { paintStatus, type Style } from './style.js';
import type { TaskResult } from '../core/task-result.js';

/** The parts of a TaskResult a script needs, as plain JSON (no raw envelope). */
export function resultToJson(result: TaskResult): Record<string, unknown> {
  const out: Record<string, unknown> = { status: result.status, protocol: result.protocol };
  if (result.taskId !== undefined) out['task_id'] = result.taskId;
  if (result.transportTaskId !== undefined) out['transport_task_id'] = result.transportTaskId;
  if (result.contextId !== undefined) out['context_id'] = result.contextId;
  if (result.message !== undefined) out['message'] = result.message;
  if ('error' in result && result.error !== undefined) {
    out['error'] = {
      ...result.error.adcpError,
      recovery: result.error.recovery,
      action: result.error.action,
      retry_delay_seconds: result.error.retryDelaySeconds,
    };
  }
  out['data'] = result.data ?? null;
  return out;
}

/** Human lines for one result: a status headline, the ids, the error with what to do, the data. */
export function renderResult(result: TaskResult, tool: string, style: Style): string {
  const lines = [
    `${style.bold(paintStatus(style, result.status))}  ${printable(tool)} ${style.dim(`via ${result.protocol}`)}`,
  ];
  const field = (name: string, value: string | undefined) => {
    if (value !== undefined) lines.push(`  ${style.dim(name.padEnd(10))} ${printable(value)}`);
  };
  field('task_id', result.taskId);
  if (result.transportTaskId !== undefined && result.transportTaskId !== result.taskId) {
    field(result.protocol === 'a2a' ? 'a2a task' : 'mcp task', result.transportTaskId);
  }
  field('message', result.message);
  if ('error' in result && result.error !== undefined) {
    const e = result.error;
    const detail = e.adcpError.message === undefined ? '' : `: ${e.adcpError.message}`;
    field('error', `${e.code}${detail}`);
    field('what next', nextStep(e.action, e.retryDelaySeconds, e.adcpError.suggestion));
  }
  if (result.data !== undefined && Object.keys(result.data).length > 0) {
    lines.push(style.dim('  data:'), indent(safeJson(result.data, 2), '  '));
  } else if (result.status === 'completed' && 'text' in result && result.text !== undefined) {
    lines.push(`  ${printable(result.text)}`);
  }
  return `${lines.join('\n')}\n`;
}

function nextStep(action: string, delay: number | null, suggestion: unknown): string {
  const hint = typeof suggestion === 'string' ? ` (${suggestion})` : '';
  switch (action) {
    case 'retry':
      return `retry ${delay === null ? 'later, with backoff' : `in ${delay} s`}${hint}`;
    case 'surface_to_caller':
      return `fix the request and call again${hint}`;
    case 'escalate_to_human':
      return `needs a person: contact the seller${hint}`;
    default:
      return `see the error code in the seller's documentation${hint}`;
  }
}

function indent(text: string, pad: string): string {
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}
