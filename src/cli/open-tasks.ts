import type { Connection } from './connection-flags.js';
import type { TaskResult } from '../core/task-result.js';

/** Reads or cancels one task at an agent. */
export interface TaskAccess {
  get(taskId: string): Promise<TaskResult>;
  cancel(taskId: string): Promise<TaskResult>;
  close(): Promise<void>;
}

export type OpenTasks = (connection: Connection, options: { transportTask: boolean }) => Promise<TaskAccess>;

const MAX_BYTES = 4 * 1024 * 1024;

/**
 * `get` of an AdCP `task_id` asks the task-status tool the agent lists (`get_task_status`, else
 * the legacy `tasks/get` or `tasks_get`: `AdcpClient.getTaskStatus`) and shows the task it describes; with `transportTask`, or for `cancel` (AdCP has no cancel
 * task), the id is the wire's own task (A2A task, MCP Task) and goes to the transport.
 */
export const openTasks: OpenTasks = async (connection, options) => {
  const [{ AdcpClient }, { createTransport }] = await Promise.all([
    import('../client/adcp-client.js'),
    import('../client/create-transport.js'),
  ]);
  const client = new AdcpClient({
    url: connection.url,
    protocol: connection.protocol,
    headers: connection.headers,
    timeoutMs: connection.timeoutMs,
    ...(connection.auth !== undefined ? { auth: connection.auth } : {}),
    ...(connection.credentialOrigins !== undefined ? { credentialOrigins: connection.credentialOrigins } : {}),
  });
  const headers = { ...connection.headers };
  if (connection.auth !== undefined) headers['authorization'] = `Bearer ${connection.auth}`;
  let transport: Awaited<ReturnType<typeof createTransport>> | undefined;
  const wire = async () => {
    transport ??= await createTransport(connection.protocol, {
      url: connection.url,
      headers,
      maxBytes: MAX_BYTES,
      ...(connection.credentialOrigins !== undefined ? { credentialOrigins: connection.credentialOrigins } : {}),
    });
    return transport;
  };
  const callOptions = () => ({ signal: AbortSignal.timeout(connection.timeoutMs), maxBytes: MAX_BYTES });
  return {
    async get(taskId) {
      if (options.transportTask) {
        const t = await wire();
        if (t.getTask === undefined)
          throw new TypeError(`${t.protocol} has no transport tasks to read; drop --transport-task.`);
        return t.getTask(taskId, callOptions());
      }
      return client.getTaskStatus(taskId);
    },
    async cancel(taskId) {
      const t = await wire();
      if (t.cancelTask === undefined) throw new TypeError(`${t.protocol} has no task cancellation.`);
      return t.cancelTask(taskId, callOptions());
    },
    async close() {
      await Promise.all([client.close(), transport?.close()]);
    },
  };
};
