import type { WorkingProgress } from '../types.js';

/** MCP `notifications/progress` params. */
export interface McpProgressParams {
  [key: string]: unknown;
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** How far a report without a (higher) percentage moves `progress` on. */
const STEP = 0.001;

/**
 * `ctx.working(message, progress)` reports of one request as MCP progress params for the
 * caller's `progressToken`. MCP: "The progress value MUST increase with each notification, even
 * if the total is unknown", so a report whose percentage is absent or not above the last value
 * moves it on by a thousandth (`total` is then left out once past 100).
 */
export function progressReporter(
  progressToken: string | number,
): (message?: string, progress?: WorkingProgress) => McpProgressParams {
  let last = -STEP;
  return (message, progress) => {
    const percentage = progress?.percentage;
    const value = percentage !== undefined && percentage > last ? percentage : last + STEP;
    last = value;
    const params: McpProgressParams = { progressToken, progress: value };
    if (percentage !== undefined && value <= 100) params.total = 100;
    const text = message ?? progress?.step;
    if (text !== undefined) params.message = text;
    return params;
  };
}
