import type { JsonObject } from '../../core/types.js';
import type { IdempotencyStore } from '../../store/idempotency-store.js';
import type { StoredTask, TaskStore } from '../../store/task-store.js';
import type { OwedWebhook } from '../../store/webhook-outbox.js';
import { isJsonObject } from '../../core/json-object.js';
import { taskWebhook } from './task-webhook.js';

/** Said of a task whose process died before it finished (a transient failure: retry it). */
export const ABANDONED_MESSAGE = 'The agent restarted before the task finished.';

const abandonedError: JsonObject = { code: 'SERVICE_UNAVAILABLE', message: ABANDONED_MESSAGE, recovery: 'transient' };

/** The stored final result of an abandoned task, per kind, as its wire reads it. */
const ABANDONED = {
  adcp: { status: 'failed', adcp_error: abandonedError },
  mcp: {
    content: [{ type: 'text', text: ABANDONED_MESSAGE }],
    structuredContent: { status: 'failed', adcp_error: abandonedError },
    isError: true,
  },
} as const;

export interface TaskUpkeep {
  /** Resolves after the first round (orphans of a dead process that are already due are failed). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/**
 * What a server does for its tasks in the background, several times per lease (docs/server.md,
 * "Tasks across restarts and fleets"): renew the leases of the tasks this process runs, and fail
 * every unfinished task whose lease lapsed (its process is gone), so pollers get an answer they
 * can act on instead of waiting out the TTL; and now and then sweep the idempotency store.
 * A round that fails (database down) is skipped; the next one tries again.
 */
export function startTaskUpkeep(options: {
  store: TaskStore;
  idempotency?: IdempotencyStore;
  /** Told when AdCP tasks were failed, so their owed webhooks go out now (the outbox sender's poll). */
  onAbandoned?: () => void;
}): TaskUpkeep {
  const { store, idempotency } = options;
  // The `failed` webhook an abandoned AdCP task owes, written with the failure (outbox stores only).
  const webhookFor =
    store.outbox === undefined
      ? undefined
      : (task: StoredTask): OwedWebhook | undefined => {
          const hook = taskWebhook(
            task,
            'failed',
            isJsonObject(task.result) ? task.result : undefined,
            ABANDONED_MESSAGE,
          );
          return hook === undefined
            ? undefined
            : { id: String(hook.envelope.idempotency_key), taskId: task.taskId, ...hook };
        };
  const everyMs = Math.max(50, Math.floor(store.leaseMs / 4));
  const sweepEvery = Math.max(1, Math.round(60_000 / everyMs));
  let rounds = 0;
  // Renewal has its own timer, apart from the abandon queries and the sweep: a round of those that
  // is slow (a busy database, a long sweep) must not let this live process's leases lapse, or
  // another instance would fail its tasks as abandoned. Each runs one at a time: a tick that finds
  // the last one still going is skipped, not queued behind it.
  let renewing: Promise<void> | undefined;
  const renew = () => {
    renewing ??= store
      .renewLeases()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (renewing = undefined));
    return renewing;
  };
  const round = async () => {
    const failed = await store.abandonUnfinished('adcp', {
      statusMessage: ABANDONED_MESSAGE,
      result: ABANDONED.adcp,
      ...(webhookFor === undefined ? {} : { webhookFor }),
    });
    if (failed > 0) options.onAbandoned?.();
    await store.abandonUnfinished('a2a', { statusMessage: ABANDONED_MESSAGE });
    await store.abandonUnfinished('mcp', { statusMessage: ABANDONED_MESSAGE, result: ABANDONED.mcp });
    if (idempotency !== undefined && rounds % sweepEvery === 0) await idempotency.sweep();
    rounds += 1;
  };
  let reaping: Promise<void> | undefined;
  const reap = () => {
    reaping ??= round()
      .catch(() => undefined)
      .finally(() => (reaping = undefined));
    return reaping;
  };
  const ready = renew().then(reap);
  const timer = setInterval(() => {
    void renew();
    void reap();
  }, everyMs);
  timer.unref();
  return {
    ready,
    async stop() {
      clearInterval(timer);
      await Promise.all([ready, renewing, reaping]);
    },
  };
}
