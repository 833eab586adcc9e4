import { UsageError, parseCommand, printable, usageError } from './args.js';
import { CONNECTION_HELP, CONNECTION_OPTIONS, readConnection } from './connection-flags.js';
import { EXIT, type CliIo, type Command } from './io.js';
import { openTasks, type OpenTasks } from './open-tasks.js';
import { renderResult, resultToJson } from './render-result.js';
import { reportError } from './report-error.js';
import { isAdcpWireError } from '../core/wire-error.js';
import { safeJson } from './safe-json.js';
import type { TaskResult } from '../core/task-result.js';
import { createStyle, wantsColor } from './style.js';

const HELP = `Usage: adcp tasks get|cancel <url> <task-id> [options]

  get     shows the current status of an AdCP task_id (get_task_status, or the legacy
          tasks/get tool), with its result once final
  cancel  cancels a transport task: an A2A task id, or an MCP Task id (AdCP itself has no
          cancel task); MCP Tasks belong to the session that made them

Options:
${CONNECTION_HELP}
  --transport-task         for get: the id is an A2A task id or MCP Task id, not an AdCP task_id
  -h, --help               show this help

Exit codes:
  0  get: the agent reported the task (whatever its status); cancel: the task is canceled
  1  the agent refused (unknown task, not allowed), or the task did not cancel
  2  usage error
  3  could not reach or read the agent

Example:
  adcp tasks get http://127.0.0.1:3000/mcp task_123
`;

const SPEC = {
  name: 'tasks',
  help: HELP,
  positionals: ['get|cancel', 'url', 'task-id'],
  options: { ...CONNECTION_OPTIONS, 'transport-task': { type: 'boolean' } },
} as const;

/** `adcp tasks get|cancel`: one look at (or the cancellation of) a task. */
export const tasksCommand: Command = (argv, io) => runTasks(argv, io, openTasks);

export async function runTasks(argv: string[], io: CliIo, open: OpenTasks): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io);
  if (typeof parsed === 'number') return parsed;
  const [action = '', url = '', taskId = ''] = parsed.positionals;
  if (action !== 'get' && action !== 'cancel') {
    return usageError(io, 'tasks', new UsageError(`the first argument is get or cancel, not '${printable(action)}'.`));
  }
  let tasks;
  try {
    if (taskId.trim() === '' || taskId.length > 256)
      throw new UsageError('give the task id the agent returned (task_id).');
    const connection = readConnection(url, parsed.values, io);
    tasks = await open(connection, { transportTask: parsed.values['transport-task'] === true });
    const result = action === 'get' ? await tasks.get(taskId) : await tasks.cancel(taskId);
    if (parsed.values.json === true) io.stdout.write(`${safeJson(resultToJson(result), 2)}\n`);
    else io.stdout.write(renderResult(result, `task ${taskId}`, createStyle(wantsColor(io))));
    const code = exitFor(action, result);
    if (code !== EXIT.ok && action === 'get' && parsed.values['transport-task'] !== true && result.protocol === 'a2a') {
      // An A2A agent has two kinds of ids: say which one this command took, and how to ask for the other.
      io.stderr.write(
        `  '${printable(taskId)}' was read as an AdCP task_id; if it is a transport task id (A2A task, MCP Task), add --transport-task.\n`,
      );
    }
    return code;
  } catch (error) {
    const code = reportError(io, 'tasks', error, { json: parsed.values.json === true });
    if (isAdcpWireError(error) && error.code === 'not_found' && parsed.values['transport-task'] !== true) {
      io.stderr.write(
        `  '${printable(taskId)}' was read as an AdCP task_id; if it is a transport task id (A2A task, MCP Task), add --transport-task.\n`,
      );
    }
    return code;
  } finally {
    await tasks?.close().catch(() => undefined);
  }
}

/** get: 0 when the agent described the task; cancel: 0 only when the task ended canceled. */
export function exitFor(action: 'get' | 'cancel', result: TaskResult): number {
  if (action === 'cancel') return result.status === 'canceled' ? EXIT.ok : EXIT.failed;
  // A failed task is still a task the agent described (its envelope names it); a refused poll is not.
  const refused =
    (result.status === 'failed' || result.status === 'rejected') &&
    result.data?.['task_id'] === undefined &&
    result.taskId === undefined;
  return refused ? EXIT.failed : EXIT.ok;
}
