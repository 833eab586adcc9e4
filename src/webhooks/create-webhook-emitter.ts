import type { JsonObject } from '../core/types.js';
import { buildWebhookEnvelope, type WebhookEventInput } from './build-webhook-envelope.js';
import { checkOutboundUrl, type OutboundReach } from '../core/outbound-url.js';
import { createPinnedFetch, UnsafeDestinationError, type ResolveHost } from '../transport/pinned-fetch.js';
import { backoffDelay, classifyResponse, type DeliveryFailure } from './delivery-policy.js';
import { signWebhookHmac, validateWebhookSecret } from './hmac.js';
import { signWebhookRequest, type WebhookSigningKey } from './sign-webhook-request.js';
import { deadlineSignal } from '../transport/deadline-signal.js';
import { checkActivityListener, type ActivityListener } from '../telemetry/activity.js';
import { tracedFetch } from '../telemetry/traced-fetch.js';
import { noteWebhookAttempt, traceWebhookSend } from '../telemetry/webhook-tracing.js';
import { sendWebhookChallenge, type WebhookChallengeOutcome } from './webhook-challenge.js';

/** Where to deliver: the buyer's `push_notification_config`. */
export interface PushNotificationConfig {
  url: string;
  operation_id?: string;
  /** Legacy opt-in (deprecated): `{ schemes: ['HMAC-SHA256'], credentials }` selects HMAC instead of RFC 9421. */
  authentication?: { schemes?: string[]; credentials?: string };
}

export interface WebhookEmitterOptions {
  /** The seller's RFC 9421 signing key (its `request-signing` JWK's private half). Required unless every buyer uses HMAC. */
  signingKey?: WebhookSigningKey;
  /**
   * Injected fetch (tests, an egress proxy). Without one, deliveries go through `createPinnedFetch`:
   * host names are resolved at send time, special-use answers refused, the checked address used.
   * An injected fetch does its own resolving: only the URL check applies.
   */
  fetch?: typeof fetch;
  /** Resolver for the default fetch (tests; the system resolver otherwise). */
  resolveHost?: ResolveHost;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Attempts in all, first included (default 6). */
  maxAttempts?: number;
  /** First backoff step (default 1 s), doubled per attempt up to `maxDelayMs` (default 60 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest `Retry-After` honoured (default 10 min); a longer one ends the delivery. */
  maxRetryAfterMs?: number;
  /** Allow http:// and every address, private and metadata ones included (tests only). */
  allowInsecureUrls?: boolean;
  /**
   * Allow http(s) to loopback receivers (`localhost`, 127.0.0.0/8, `::1`) besides public https
   * ones (a seller on loopback, local tests and demos); private, link-local and metadata
   * addresses stay refused.
   */
  allowLoopbackUrls?: boolean;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  /** Told of every attempt (for `webhook_activity` style diagnostics); its errors are ignored. */
  onAttempt?: (attempt: DeliveryAttempt) => void;
  /** Told of every attempt as a `webhook` `sent` activity event (docs/telemetry.md); its errors are ignored. */
  onActivity?: ActivityListener;
}

/** One HTTP attempt of a delivery. */
export interface DeliveryAttempt {
  idempotencyKey: string;
  url: string;
  attempt: number;
  /** HTTP status, when the receiver answered. */
  status?: number;
  /** Network or timeout error message, when it did not. */
  error?: string;
  /** Wait before the next attempt; absent when this attempt ended the delivery. */
  nextDelayMs?: number;
}

/** The final outcome of one event's delivery. */
export type DeliveryOutcome =
  | { ok: true; idempotencyKey: string; attempts: number; status: number }
  | { ok: false; idempotencyKey: string; attempts: number; reason: DeliveryFailure; status?: number; error?: string };

export interface WebhookEmitter {
  /**
   * Delivers one status change to `config.url`: builds the envelope once (same `idempotency_key`
   * and body on every retry), signs each attempt afresh, retries with backoff; never throws for
   * delivery failures (the outcome says why), only for misuse (TypeError).
   */
  send(
    config: PushNotificationConfig,
    event: Omit<WebhookEventInput, 'operationId'> & { operationId?: string },
    options?: { signal?: AbortSignal },
  ): Promise<DeliveryOutcome>;
  /** Delivers an envelope built earlier with `buildWebhookEnvelope` (e.g. a persisted retry). */
  deliver(
    config: PushNotificationConfig,
    envelope: JsonObject,
    options?: { signal?: AbortSignal },
  ): Promise<DeliveryOutcome>;
  /**
   * Sends an account-level proof-of-control challenge to `url` (`sendWebhookChallenge`): the URL
   * is checked as deliveries' are, the POST goes through the same fetch, signed with `signingKey`
   * (`unavailable` without one), within `timeoutMs`, once.
   */
  challenge(url: string, fields: JsonObject, options?: { signal?: AbortSignal }): Promise<WebhookChallengeOutcome>;
}

/** Creates the seller-side webhook emitter (webhooks.md; security.md "Webhook callbacks"). */
export function createWebhookEmitter(options: WebhookEmitterOptions = {}): WebhookEmitter {
  checkActivityListener('createWebhookEmitter', options.onActivity);
  const reach = webhookReach(options);
  const doFetch = tracedFetch(
    options.fetch ??
      createPinnedFetch({
        reach,
        ...(options.resolveHost === undefined ? {} : { resolve: options.resolveHost }),
      }),
  );
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 6;
  const backoff = { baseDelayMs: options.baseDelayMs ?? 1000, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 600_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    throw new RangeError('createWebhookEmitter: maxAttempts must be an integer >= 1');
  const report = (attempt: DeliveryAttempt): void => {
    noteWebhookAttempt(options.onActivity, attempt);
    try {
      options.onAttempt?.(attempt);
    } catch {
      // A diagnostics hook never changes the delivery.
    }
  };

  function headersFor(config: PushNotificationConfig, url: string, body: string): Record<string, string> {
    const auth = config.authentication;
    if (auth?.credentials !== undefined) {
      const schemes = auth.schemes ?? ['HMAC-SHA256'];
      if (schemes.includes('HMAC-SHA256')) {
        const signed = signWebhookHmac({
          secret: auth.credentials,
          rawBody: body,
          timestamp: Math.floor(now() / 1000),
        });
        return { 'Content-Type': 'application/json', ...signed.headers };
      }
      if (schemes.includes('Bearer'))
        return { 'Content-Type': 'application/json', Authorization: `Bearer ${auth.credentials}` };
      throw new TypeError(`webhook emitter: unsupported authentication schemes ${schemes.join(', ')}`);
    }
    if (options.signingKey === undefined)
      throw new TypeError('webhook emitter: no signingKey configured for RFC 9421 delivery');
    return signWebhookRequest({ url, body, key: options.signingKey, now: now() });
  }

  function deliver(
    config: PushNotificationConfig,
    envelope: JsonObject,
    sendOptions: { signal?: AbortSignal } = {},
  ): Promise<DeliveryOutcome> {
    const ids = { operationId: envelope['operation_id'], taskId: envelope['task_id'], status: envelope['status'] };
    return traceWebhookSend(String(config.url), ids, () => deliverOnce(config, envelope, sendOptions));
  }

  async function deliverOnce(
    config: PushNotificationConfig,
    envelope: JsonObject,
    sendOptions: { signal?: AbortSignal },
  ): Promise<DeliveryOutcome> {
    const idempotencyKey = String(envelope['idempotency_key']);
    const destination = checkOutboundUrl(config.url, { reach });
    if (!destination.ok)
      return { ok: false, idempotencyKey, attempts: 0, reason: 'unsafe_url', error: destination.reason };
    if (config.authentication?.credentials !== undefined) {
      const check = validateWebhookSecret(config.authentication.credentials);
      if (!check.ok)
        return {
          ok: false,
          idempotencyKey,
          attempts: 0,
          reason: 'rejected',
          error: `buyer credentials refused: ${check.reason}`,
        };
    }
    const body = JSON.stringify(envelope);
    let lastStatus: number | undefined;
    let lastError: string | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
      if (isAborted(sendOptions.signal)) return { ok: false, idempotencyKey, attempts: attempt - 1, reason: 'aborted' };
      let retryAfterMs: number | undefined;
      const headers = headersFor(config, config.url, body); // signed afresh for every attempt
      // The attempt's own timer (a Deadline), not `AbortSignal.timeout` inside `AbortSignal.any`:
      // Node may collect that timeout signal before it fires, and an attempt on a receiver that
      // never answers then holds its socket for ever (issue 36 item 5).
      const deadline = deadlineSignal(timeoutMs, sendOptions.signal, 'webhook attempt');
      try {
        const signal = deadline.signal;
        const response = await doFetch(config.url, { method: 'POST', headers, body, redirect: 'manual', signal });
        await response.body?.cancel().catch(() => undefined);
        lastStatus = response.status;
        lastError = undefined;
        const verdict = classifyResponse(response.status, response.headers, now());
        if (verdict.kind !== 'retry') report({ idempotencyKey, url: config.url, attempt, status: response.status });
        if (verdict.kind === 'delivered')
          return { ok: true, idempotencyKey, attempts: attempt, status: response.status };
        if (verdict.kind === 'stop')
          return { ok: false, idempotencyKey, attempts: attempt, reason: verdict.reason, status: response.status };
        retryAfterMs = verdict.retryAfterMs;
        if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) {
          return {
            ok: false,
            idempotencyKey,
            attempts: attempt,
            reason: 'retries_exhausted',
            status: response.status,
            error: 'Retry-After beyond limit',
          };
        }
      } catch (error) {
        if (isAborted(sendOptions.signal)) return { ok: false, idempotencyKey, attempts: attempt, reason: 'aborted' };
        if (error instanceof UnsafeDestinationError) {
          report({ idempotencyKey, url: config.url, attempt, error: error.message });
          return { ok: false, idempotencyKey, attempts: attempt - 1, reason: 'unsafe_url', error: error.message };
        }
        lastStatus = undefined;
        lastError = deadline.aborted ? `no answer within ${timeoutMs} ms` : errorMessage(error);
      } finally {
        deadline.dispose();
      }
      const delay = attempt < maxAttempts ? backoffDelay(attempt, backoff, random, retryAfterMs) : undefined;
      report({
        idempotencyKey,
        url: config.url,
        attempt,
        ...(lastStatus !== undefined ? { status: lastStatus } : {}),
        ...(lastError !== undefined ? { error: lastError } : {}),
        ...(delay !== undefined ? { nextDelayMs: delay } : {}),
      });
      if (delay !== undefined) await sleep(delay, sendOptions.signal);
    }
    return {
      ok: false,
      idempotencyKey,
      attempts: maxAttempts,
      reason: 'retries_exhausted',
      ...(lastStatus !== undefined ? { status: lastStatus } : {}),
      ...(lastError !== undefined ? { error: lastError } : {}),
    };
  }

  return {
    deliver,
    async challenge(url, fields, challengeOptions = {}) {
      if (!checkOutboundUrl(url, { reach }).ok) return { ok: false, reason: 'unsafe_url' };
      if (options.signingKey === undefined) return { ok: false, reason: 'unavailable' };
      return await sendWebhookChallenge({
        url,
        fields,
        key: options.signingKey,
        fetch: doFetch,
        timeoutMs,
        now,
        ...(challengeOptions.signal === undefined ? {} : { signal: challengeOptions.signal }),
      });
    },
    send(config, event, sendOptions) {
      const operationId = event.operationId ?? config.operation_id;
      if (operationId === undefined)
        throw new TypeError('webhook emitter: no operation_id (pass event.operationId or config.operation_id)');
      return deliver(config, buildWebhookEnvelope({ ...event, operationId }), sendOptions);
    },
  };
}

/** What the emitter's options let a buyer's webhook URL reach (`checkOutboundUrl`). */
export function webhookReach(
  options: Pick<WebhookEmitterOptions, 'allowInsecureUrls' | 'allowLoopbackUrls'>,
): OutboundReach {
  if (options.allowInsecureUrls === true) return 'any';
  return options.allowLoopbackUrls === true ? 'loopback' : 'public';
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
