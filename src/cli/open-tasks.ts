import type { Connection } from './connection-flags.js';
import type { TaskResult } from '../core/task-result.js';
import { openAdcpClient } from './open-client.js';

/** Reads or cancels one task at an agent. */
export interface TaskAccess {
  get(taskId: string): Promise<TaskResult>;
  cancel(taskId: string): Promise<TaskResult>;
  close(): Promise<void>;
}

export type OpenTasks = (connection: Connection, options: { transportTask: boolean }) => Promise<TaskAccess>;

/**
 * One AdcpClient for the command. `get` of an AdCP `task_id` asks the task-status tool the agent
 * lists (`getTaskStatus`: `get_task_status`, else the legacy `tasks/get` or `tasks_get`) and shows
 * the task it describes; with `transportTask`, or for `cancel` (AdCP has no cancel task), the id is
 * the wire's own task (A2A task, MCP Task): `getTransportTask`, `cancelTransportTask`.
 */
export const openTasks: OpenTasks = async (connection, options) => {
  const client = await openAdcpClient(connection);
  return {
    get: (taskId) => (options.transportTask ? client.getTransportTask(taskId) : client.getTaskStatus(taskId)),
    cancel: (taskId) => client.cancelTransportTask(taskId),
    close: () => client.close(),
  };
};
