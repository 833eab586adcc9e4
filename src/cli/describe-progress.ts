import type { ProgressEvent } from '../transport/transport.js';

/** One short line for a progress event: status, task id, percentage, step, message. */
export function describeProgress(event: ProgressEvent): string {
  const parts: string[] = [`… ${event.status}`];
  if (event.taskId !== undefined) parts.push(`task ${event.taskId}`);
  if (event.percentage !== undefined) parts.push(`${Math.round(event.percentage)}%`);
  if (event.step !== undefined) parts.push(event.step);
  if (event.message !== undefined) parts.push(`- ${event.message}`);
  return parts.join('  ');
}
