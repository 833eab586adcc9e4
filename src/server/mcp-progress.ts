import type { WorkingProgress } from './types.js';

/** MCP `notifications/progress` params. */
export interface McpProgressParams {
  [key: string]: unknown;
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** `ctx.working(message, progress)` as MCP progress params for the caller's `progressToken`. */
export function toProgressParams(
  progressToken: string | number,
  message?: string,
  progress?: WorkingProgress,
): McpProgressParams {
  const params: McpProgressParams = { progressToken, progress: progress?.percentage ?? 0 };
  if (progress?.percentage !== undefined) params.total = 100;
  const text = message ?? progress?.step;
  if (text !== undefined) params.message = text;
  return params;
}
