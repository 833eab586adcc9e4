import { printable } from './args.js';
import { paintStatus, type Style } from './style.js';
import type { ActivityEvent } from '../telemetry/activity.js';
import type { RetryNotice } from '../client/retry.js';
import type { JsonObject } from '../core/types.js';

/** A retry the client is about to make, as `adcp call --verbose` shows it beside the activity events. */
export interface RetryActivity extends RetryNotice {
  type: 'retry';
  at: number;
  tool: string;
}

/** What `--verbose` prints: the library's activity events, and the CLI's retry notices. */
export type CliActivity = ActivityEvent | RetryActivity;

const id = (text: string | undefined): string => printable(text ?? '', 80);

/**
 * One line for one event: time, kind, then identifiers, statuses, codes and timings. Events carry
 * no bodies, tokens or keys; every string is still sanitised (seller text).
 */
export function formatActivity(event: CliActivity, style: Style): string {
  const time = style.dim(new Date(event.at).toISOString().slice(11, 23));
  const parts = [time, kind(event).padEnd(8)];
  switch (event.type) {
    case 'request':
      parts.push(id(event.tool), event.protocol, event.poll === true ? `poll ${event.attempt ?? 1}` : attemptOf(event));
      break;
    case 'response':
      parts.push(id(event.tool), paintStatus(style, id(event.status)));
      if (event.errorCode !== undefined) parts.push(style.red(id(event.errorCode)));
      parts.push(`${Math.round(event.durationMs)} ms`);
      if (event.taskId !== undefined) parts.push(`task ${id(event.taskId)}`);
      break;
    case 'retry':
      parts.push(
        id(event.tool),
        id(event.reason),
        `attempt ${event.attempt} of ${event.maxAttempts} in ${seconds(event.delayMs)}`,
        event.agentAsked ? '(as the agent asked)' : '(backing off)',
      );
      break;
    case 'status_change':
      if (event.tool !== undefined) parts.push(id(event.tool));
      parts.push(`${id(event.from)} -> ${paintStatus(style, id(event.status))}`);
      if (event.taskId !== undefined) parts.push(`task ${id(event.taskId)}`);
      if (event.operationId !== undefined) parts.push(`op ${id(event.operationId)}`);
      break;
    case 'webhook':
      if (event.direction === 'received') {
        const outcome = event.outcome === 'accepted' ? style.green('accepted') : style.yellow(event.outcome);
        parts.push(outcome, String(event.httpStatus));
        if (event.reason !== event.outcome) parts.push(id(event.reason));
        parts.push(`${Math.round(event.durationMs)} ms`);
      } else {
        parts.push(`sent attempt ${event.attempt}`);
        if (event.httpStatus !== undefined) parts.push(String(event.httpStatus));
        if (event.outcome !== undefined) parts.push(id(event.outcome));
        parts.push(`key ${id(event.idempotencyKey)}`);
      }
      break;
  }
  if (event.type !== 'retry' && event.traceId !== undefined) parts.push(style.dim(`trace ${id(event.traceId)}`));
  return `${parts.join('  ')}\n`;
}

/** The event as one JSON object (snake_case keys, `at` as an ISO time), for `--json --verbose`. */
export function activityToJson(event: CliActivity): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(event)) {
    if (value === undefined) continue;
    const name = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (key === 'at') out[name] = new Date(value as number).toISOString();
    else if (key === 'durationMs') out[name] = Math.round(value as number);
    else out[name] = value as string | number | boolean;
  }
  return out;
}

function kind(event: CliActivity): string {
  if (event.type === 'status_change') return 'status';
  return event.type;
}

function attemptOf(event: { attempt?: number }): string {
  return `attempt ${event.attempt ?? 1}`;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}
