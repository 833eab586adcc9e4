import type { JsonObject } from '../core/types.js';
import type { ClaimedWebhook, WebhookOutbox } from '../store/webhook-outbox.js';
import { backoffDelay } from '../webhooks/delivery-policy.js';
import type { ServerWebhooks } from './server-webhooks.js';

export interface OutboxSender {
  /** How long a delivery is leased for one attempt: the attempt's timeout and a margin. */
  readonly leaseMs: number;
  /** Sends now a delivery this process wrote leased to itself (`OwedWebhook.leaseMs`). */
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
  /** First retry delay (default 1 s), doubled per attempt up to `maxDelayMs` (default 60 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  random?: () => number;
}

/**
 * The sender loop of the webhook outbox (docs/fleet.md, "Webhook outbox"): sends at once what
 * this process wrote leased to itself, and polls for deliveries that are due and unleased
 * (retries, a dead process's leases that lapsed, failures written for abandoned tasks). One
 * attempt per lease; a retryable failure is put back with a backoff, so any process may make
 * the next attempt; the delivery is settled `delivered` or, past `maxAttempts` or on a final
 * answer, `failed`.
 */
export function startOutboxSender(options: OutboxSenderOptions): OutboxSender {
  const { outbox, webhooks } = options;
  const leaseMs = webhooks.timeoutMs + 5_000;
  const maxInFlight = options.maxInFlight ?? 64;
  const backoff = { baseDelayMs: options.baseDelayMs ?? 1_000, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const random = options.random ?? Math.random;
  const inFlight = new Map<string, Promise<void>>();
  const closing = new AbortController();
  let cutShort = 0;

  const deliver = async (entry: ClaimedWebhook): Promise<void> => {
    const result = await webhooks.attempt(entry.destination as JsonObject, entry.envelope, {
      signal: closing.signal,
    });
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

  const start = (entry: ClaimedWebhook): void => {
    if (inFlight.has(entry.id) || closing.signal.aborted) return;
    // A store failure leaves the row leased: the lease lapses and a later poll tries again.
    const done = deliver(entry)
      .catch(() => undefined)
      .finally(() => inFlight.delete(entry.id));
    inFlight.set(entry.id, done);
  };

  let polling: Promise<void> | undefined;
  const poll = (): void => {
    if (polling !== undefined || closing.signal.aborted) return;
    const room = maxInFlight - inFlight.size;
    if (room <= 0) return;
    polling = outbox
      .claim({ limit: Math.min(room, 32), leaseMs })
      .then((claimed) => claimed.forEach(start))
      .catch(() => undefined)
      .finally(() => (polling = undefined));
  };
  const timer = setInterval(poll, options.pollMs ?? 1_000);
  timer.unref();
  poll(); // what a previous run left owed goes out at start

  return {
    leaseMs,
    send: start,
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
