import type { TaskStatus } from '../core/types.js';

/**
 * MCP Task status to AdCP status, per the MCP guide's table ("MCP Task Status vs. AdCP Status")
 * read backwards. This describes the transport wrapper only: once a task has a `CallToolResult`,
 * the AdCP payload inside it decides (a `completed` MCP Task may carry an AdCP `submitted`).
 * `input_required` covers both `input-required` and `auth-required`; without the payload we
 * cannot tell them apart, so it maps to `input-required`. Unknown values give `null`.
 */
export function mapMcpTaskStatus(status: unknown): TaskStatus | null {
  switch (status) {
    case 'working':
      return 'working';
    case 'input_required':
      return 'input-required';
    case 'completed':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'canceled';
    default:
      return null;
  }
}

/** True for the MCP Task states after which `tasks/get` will not change any more. */
export function isTerminalMcpTaskStatus(status: unknown): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
