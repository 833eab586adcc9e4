import type { ProgressEvent } from '../transport/transport.js';

/** Whose status a line shows: the A2A Task's, the MCP request's or Task's, or the AdCP task's. */
const LIFECYCLE_LABEL: Record<ProgressEvent['lifecycle'], string> = {
  a2a: 'A2A task',
  mcp: 'MCP',
  adcp: 'AdCP task',
};

/** One short line for a progress event: whose status, status, task id, percentage, step, message. */
export function describeProgress(event: ProgressEvent): string {
  const parts: string[] = [`… ${LIFECYCLE_LABEL[event.lifecycle] ?? 'task'} ${event.status}`];
  if (event.taskId !== undefined) parts.push(`task ${event.taskId}`);
  if (event.percentage !== undefined) parts.push(`${Math.round(event.percentage)}%`);
  if (event.step !== undefined) parts.push(event.step);
  if (event.message !== undefined) parts.push(`- ${event.message}`);
  return parts.join('  ');
}
