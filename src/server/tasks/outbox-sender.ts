import type { JsonObject } from '../../core/types.js';
import type { ClaimedWebhook, WebhookOutbox } from '../../store/webhook-outbox.js';
import { backoffDelay } from '../../webhooks/delivery-policy.js';
import { deadlineSignal, type Deadline } from '../../transport/deadline-signal.js';
import type { ServerWebhooks, WebhookAttempt } from './server-webhooks.js';

export interface OutboxSender {
  /** How long a delivery is leased for one attempt: the attempt's timeout and a margin. */
  readonly leaseMs: number;
  /** Sends now a delivery this process wrote leased to itself (`OwedWebhook.leaseMs`); handed back when its host is busy. */
  send(entry: ClaimedWebhook): void;
  /** Looks for due deliveries now rather than at the next poll (after abandoning tasks, say). */
  poll(): void;
  /** Attempts in flight (a drain waits for 0). */
  readonly busy: number;
  /** Aborts attempts in flight, releases this process's leases; resolves to how many were cut short. */
  close(): Promise<number>;
}

export interface OutboxSenderOptions {
  outbox: WebhookOutbox;
  webhooks: Pick<ServerWebhooks, 'attempt' | 'maxAttempts' | 'timeoutMs'>;
  /** How often the outbox is polled for due deliveries (default 1 s). */
  pollMs?: number;
  /** Attempts in flight at most (default 64). */
  maxInFlight?: number;
  /**
   * Attempts in flight at most to one destination host (default 8): a buyer whose receiver
   * holds every request open takes this many of the `maxInFlight` slots, never all of them.
   */
  maxInFlightPerHost?: number;
  /** First retry delay (default 1 s), doubled per attempt up to `maxDelayMs` (default 60 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
}

/** Claims per poll at most: a poll whose rows all go to busy hosts claims again, this many times. */
const MAX_CLAIMS_PER_POLL = 8;

/**
 * The sender loop of the webhook outbox (docs/fleet.md, "Webhook outbox"): sends at once what
 * this process wrote leased to itself, and polls for deliveries that are due and unleased
 * (retries, a dead process's leases that lapsed, failures written for abandoned tasks). One
 * attempt per lease; a retryable failure is put back with a backoff, so any process may make
 * the next attempt; the delivery is settled `delivered` or, past `maxAttempts` or on a final
 * answer, `failed`.
 *
 * Every attempt ends within `timeoutMs` and a margin, inside its lease, whatever the receiver
 * does (it is cut off, and counted as a retryable failure), so a lease never lapses under an
 * attempt still in flight. A delivery claimed while its destination host already has
 * `maxInFlightPerHost` attempts in flight is handed back uncounted (`postpone`), due again
 * when one of them must have ended.
 */
export function startOutboxSender(options: OutboxSenderOptions): OutboxSender {
  const { outbox, webhooks } = options;
  const leaseMs = webhooks.timeoutMs + 5_000;
  const attemptMs = webhooks.timeoutMs + 1_000;
  const maxInFlight = options.maxInFlight ?? 64;
  const maxPerHost = options.maxInFlightPerHost ?? 8;
  const backoff = { baseDelayMs: options.baseDelayMs ?? 1_000, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const random = options.random ?? Math.random;
  const inFlight = new Map<string, Promise<void>>();
  const perHost = new Map<string, number>();
  const closing = new AbortController();
  let cutShort = 0;

  const deliver = async (entry: ClaimedWebhook): Promise<void> => {
    if (entry.attempts > webhooks.maxAttempts) {
      // Claimed again after leases lapsed under attempts that never reported (a process that died mid-attempt).
      await outbox.settle(entry.id, { state: 'failed', error: 'attempts used up' });
      return;
    }
    const deadline = deadlineSignal(attemptMs, closing.signal, 'webhook attempt');
    let result: WebhookAttempt;
    try {
      // Raced against the deadline too: a `send` that ignores its signal still frees its slot.
      result = await Promise.race([
        webhooks.attempt(entry.destination as JsonObject, entry.envelope, { signal: deadline.signal }),
        untilAborted(deadline),
      ]);
    } finally {
      deadline.dispose();
    }
    if (!result.ok && closing.signal.aborted) {
      cutShort += 1; // its lease is released at close: another process (or the next start) sends it
      return;
    }
    if (result.ok) await outbox.settle(entry.id, { state: 'delivered' });
    else if (result.retry && entry.attempts < webhooks.maxAttempts) {
      const delay = backoffDelay(entry.attempts, backoff, random, result.retryAfterMs);
      await outbox.retryAt(entry.id, Date.now() + delay, result.error);
    } else await outbox.settle(entry.id, { state: 'failed', error: result.error });
  };

  /** Starts `entry`'s attempt; false when its host is busy (the entry is not taken). */
  const start = (entry: ClaimedWebhook): boolean => {
    if (inFlight.has(entry.id) || closing.signal.aborted) return true;
    const host = hostOf(entry.destination);
    const busy = perHost.get(host) ?? 0;
    if (busy >= maxPerHost) return false;
    perHost.set(host, busy + 1);
    // A store failure leaves the row leased: the lease lapses and a later poll tries again.
    const done = deliver(entry)
      .catch(() => undefined)
      .finally(() => {
        inFlight.delete(entry.id);
        const left = (perHost.get(host) ?? 1) - 1;
        if (left === 0) perHost.delete(host);
        else perHost.set(host, left);
      });
    inFlight.set(entry.id, done);
    return true;
  };

  /** Starts what it can of `claimed`; hands the rest back; resolves to how many were handed back. */
  const take = async (claimed: ClaimedWebhook[]): Promise<number> => {
    const busy = claimed.filter((entry) => !start(entry));
    await Promise.all(busy.map((entry) => outbox.postpone(entry.id, Date.now() + attemptMs)));
    return busy.length;
  };

  let polling: Promise<void> | undefined;
  const pollOnce = async (): Promise<void> => {
    for (let round = 0; round < MAX_CLAIMS_PER_POLL && !closing.signal.aborted; round += 1) {
      const room = maxInFlight - inFlight.size;
      if (room <= 0) return;
      const limit = Math.min(room, 32);
      const claimed = await outbox.claim({ limit, leaseMs });
      const handedBack = await take(claimed);
      if (claimed.length < limit || handedBack === 0) return;
    }
  };
  const poll = (): void => {
    if (polling !== undefined || closing.signal.aborted) return;
    polling = pollOnce()
      .catch(() => undefined)
      .finally(() => (polling = undefined));
  };
  const timer = setInterval(poll, options.pollMs ?? 1_000);
  timer.unref();
  poll(); // what a previous run left owed goes out at start

  return {
    leaseMs,
    send(entry) {
      void take([entry]).catch(() => undefined); // a row left leased lapses: a later poll sends it
    },
    poll,
    get busy() {
      return inFlight.size;
    },
    async close() {
      clearInterval(timer);
      closing.abort();
      await polling;
      await Promise.allSettled([...inFlight.values()]);
      await outbox.release().catch(() => undefined);
      return cutShort;
    },
  };
}

/** The host a delivery goes to, lower case (`?` when its URL cannot be read: the emitter refuses it). */
function hostOf(destination: unknown): string {
  const url = (destination as { url?: unknown } | null)?.url;
  if (typeof url !== 'string' || !URL.canParse(url)) return '?';
  return new URL(url).hostname.toLowerCase().replace(/\.+$/, '');
}

/** Resolves to a retryable failure when `deadline` ends. */
function untilAborted(deadline: Deadline): Promise<WebhookAttempt> {
  return new Promise((resolve) => {
    const failed = (): void => resolve({ ok: false, retry: true, error: 'attempt cut off at its deadline' });
    if (deadline.aborted) failed();
    else deadline.onAbort(failed);
  });
}
