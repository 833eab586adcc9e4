import type { StoredTask, TaskStore } from '../../store/task-store.js';
import type { AdcpAnswer } from '../calls/invoke-tool.js';
import { toCallToolResult } from './mcp-call-result.js';
import type { WorkingProgress } from '../types.js';
import type { CancelWatch } from '../tasks/cancel-watch.js';

/** Reports a tool's progress (`context.working`). */
export type WorkingReport = (message?: string, progress?: WorkingProgress) => void;

/** Work in flight that may become an MCP task: its answer, its abort, where its progress goes. */
export interface McpWork {
  answer: Promise<AdcpAnswer>;
  controller: AbortController;
  /** Progress so far goes to `setReport`'s target from now on (the last report is replayed). */
  setReport(report: WorkingReport): void;
}

/** Starts `run` with its own abort controller; progress is buffered until `setReport`. */
export function startMcpWork(run: (signal: AbortSignal, onWorking: WorkingReport) => Promise<AdcpAnswer>): McpWork {
  const controller = new AbortController();
  let report: WorkingReport | undefined;
  let last: Parameters<WorkingReport> | undefined;
  const answer = run(controller.signal, (...args) => {
    last = args;
    report?.(...args);
  });
  return {
    answer,
    controller,
    setReport(next) {
      report = next;
      if (last !== undefined) next(...last);
    },
  };
}

/**
 * The work behind MCP tasks of both eras (2025 experimental Tasks, the 2026 Tasks extension): one
 * map of running work per server, so a cancel from either era aborts it, whichever era created it.
 */
export interface McpTaskWork {
  /**
   * Binds running `work` to the stored `task`: its progress becomes the task's `statusMessage`,
   * its answer the task's result (`completed`, or `failed` for an AdCP error answer, as the
   * stored 2025 task spells it); the task's TTL (or the fallback) aborts it.
   */
  adopt(owner: string, task: StoredTask, toolName: string, work: McpWork): void;
  /** Aborts the work of a cancelled task (no-op when it is not running here). */
  abort(taskId: string): void;
  /** How many tasks' work is running here (a drain waits for 0). */
  readonly busy: number;
  /** Aborts everything (server shutdown). */
  close(): void;
}

/** `watch`: aborts the work of a task cancelled through another instance of a fleet. */
export function createMcpTaskWork(store: TaskStore, fallbackMs: number, watch?: CancelWatch): McpTaskWork {
  const running = new Map<string, AbortController>();
  return {
    adopt(owner, task, toolName, work) {
      running.set(task.taskId, work.controller);
      const untrack = watch?.track(task.taskId, () => work.controller.abort(new Error('cancelled')));
      const ttlTimer = setTimeout(() => work.controller.abort(new Error('ttl')), task.ttlMs ?? fallbackMs);
      ttlTimer.unref();
      // Progress of a task shows as the MCP task's `statusMessage` (tasks/get).
      work.setReport((message, progress) => {
        const parts = [
          message,
          progress?.step,
          progress?.percentage === undefined ? undefined : `${progress.percentage}%`,
        ];
        const statusMessage = parts.filter((p) => p !== undefined).join(' ');
        if (statusMessage !== '') void store.update(owner, task.taskId, { statusMessage }).catch(() => undefined);
      });
      void work.answer
        .then((answer) =>
          store.update(owner, task.taskId, {
            status: answer.isError ? 'failed' : 'completed',
            result: toCallToolResult(toolName, answer),
          }),
        )
        .catch(() => undefined)
        .finally(() => {
          clearTimeout(ttlTimer);
          untrack?.();
          running.delete(task.taskId);
        });
    },
    abort(taskId) {
      running.get(taskId)?.abort(new Error('cancelled'));
    },
    get busy() {
      return running.size;
    },
    close() {
      for (const controller of running.values()) controller.abort(new Error('server closing'));
    },
  };
}
