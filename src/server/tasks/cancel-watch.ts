import type { TaskStore } from '../../store/task-store.js';

/** How often an instance looks for cancels of the work it runs, while it runs any (ms). */
export const CANCEL_WATCH_MS = 500;
// Task ids per query: a bounded statement however much work runs here.
const BATCH = 500;

/**
 * Aborts work running in this process whose task was cancelled through another instance of a
 * fleet (docs/fleet.md, "Cancelling across instances"). A cancel served here aborts the work at
 * once; one served elsewhere only changes the shared row, so while work is tracked here the
 * store is asked every `everyMs` which of these tasks are now cancelled: one indexed query per
 * round and nothing while nothing runs. Only a store shared between processes can say
 * (`TaskStore.cancelledAmong`); with any other store this does nothing.
 */
export interface CancelWatch {
  /** Tracks running work of `taskId`; `abort` is called once if it is cancelled elsewhere. Returns the untrack. */
  track(taskId: string, abort: () => void): () => void;
  /** Stops watching (server shutdown); a round in flight finishes first. */
  stop(): Promise<void>;
}

export function startCancelWatch(store: TaskStore, everyMs = CANCEL_WATCH_MS): CancelWatch {
  const tracked = new Map<string, () => void>();
  const lookup = store.cancelledAmong?.bind(store);
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let stopped = false;

  const round = async () => {
    if (lookup === undefined) return;
    const ids = [...tracked.keys()];
    for (let at = 0; at < ids.length && !stopped; at += BATCH) {
      for (const taskId of await lookup(ids.slice(at, at + BATCH))) {
        const abort = tracked.get(taskId);
        tracked.delete(taskId);
        abort?.();
      }
    }
  };
  const schedule = () => {
    if (timer !== undefined || stopped || lookup === undefined || tracked.size === 0) return;
    timer = setTimeout(() => {
      // A failed round (database down) is skipped; the next one asks again.
      current = round()
        .catch(() => undefined)
        .finally(() => {
          timer = undefined;
          schedule();
        });
    }, everyMs);
    timer.unref();
  };

  return {
    track(taskId, abort) {
      tracked.set(taskId, abort);
      schedule();
      return () => {
        if (tracked.get(taskId) === abort) tracked.delete(taskId);
      };
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      tracked.clear();
      await current;
    },
  };
}
