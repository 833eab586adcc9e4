import type { AdcpTaskRunner } from './adcp-tasks.js';
import type { AdcpToolDefinition } from '../types.js';

const TASK_STATUS_SCHEMA = {
  type: 'object',
  properties: {
    task_id: { type: 'string', description: 'The AdCP task_id from a submitted answer.' },
    include_result: { type: 'boolean', description: 'Include the terminal result when there is one.' },
  },
  required: ['task_id'],
  additionalProperties: true,
};

/**
 * The AdCP polling surface every server gets (task-lifecycle.md, "Polling and Timeouts"):
 * `get_task_status` and its legacy alias `tasks/get` (MCP only), both scoped to the caller's principal.
 */
export function taskStatusTools(runner: AdcpTaskRunner): AdcpToolDefinition[] {
  const handler: AdcpToolDefinition['handler'] = (args, context) => runner.status(context.principal, args);
  return [
    {
      name: 'get_task_status',
      description: 'Read the status (and, with include_result, the result) of an AdCP async task.',
      taskSupport: 'forbidden',
      handler,
    },
    {
      name: 'tasks/get',
      description: 'Legacy alias of get_task_status.',
      inputSchema: TASK_STATUS_SCHEMA,
      // On A2A, `tasks/get` is the transport's own method; the profile polls with get_task_status.
      protocols: ['mcp'],
      taskSupport: 'forbidden',
      handler,
    },
  ];
}
