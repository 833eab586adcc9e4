import { emitActivity, type ActivityListener } from './activity.js';
import { ADCP_ATTR, safeId, urlAttributes } from './attributes.js';
import { meters } from './metrics.js';
import { activeTraceId } from './otel.js';
import { extractTraceContext, type HeaderSource } from './propagation.js';
import { inSpan } from './span.js';

/** The receiver's answer as the handler returns it. */
interface ReceiverAnswer {
  status: number;
  reason: string;
}

/** `accepted`, `duplicate` or `refused`, from the answer. */
function outcomeOf(answer: ReceiverAnswer): 'accepted' | 'duplicate' | 'refused' {
  if (answer.status >= 300) return 'refused';
  return answer.reason === 'duplicate' ? 'duplicate' : 'accepted';
}

/**
 * One webhook delivery received: a SERVER span `adcp.webhook.receive` continuing the sender's W3C
 * trace context, with the answer's status and reason; the `adcp.webhook.deliveries` counter by
 * outcome and reason; one `webhook` activity event.
 */
export function traceWebhookReceive<T extends ReceiverAnswer>(
  headers: HeaderSource,
  listener: ActivityListener | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  return inSpan(
    'adcp.webhook.receive',
    () => {
      const parent = extractTraceContext(headers);
      return {
        kind: 'server',
        attributes: { 'http.request.method': 'POST' },
        ...(parent === undefined ? {} : { parent }),
      };
    },
    async (span) => {
      const answer = await run();
      const outcome = outcomeOf(answer);
      const reason = safeId(answer.reason) ?? 'unknown';
      span.set('http.response.status_code', answer.status);
      span.set('adcp.webhook.outcome', outcome);
      span.set('adcp.webhook.reason', reason);
      if (outcome === 'refused') span.fail(reason);
      meters()?.webhookDeliveries.add(1, { 'adcp.webhook.outcome': outcome, 'adcp.webhook.reason': reason });
      const traceId = activeTraceId();
      emitActivity(listener, {
        type: 'webhook',
        direction: 'received',
        at: Date.now(),
        outcome,
        httpStatus: answer.status,
        reason,
        durationMs: performance.now() - started,
        ...(traceId === undefined ? {} : { traceId }),
      });
      return answer;
    },
  );
}

/** The signature check of a delivery: a span `adcp.webhook.verify` marked with whether it passed. */
export function traceVerification<T extends { ok: boolean; reason?: string }>(run: () => Promise<T>): Promise<T> {
  return inSpan('adcp.webhook.verify', {}, async (span) => {
    const result = await run();
    span.set('adcp.webhook.verified', result.ok);
    if (!result.ok) span.fail(safeId(result.reason) ?? 'unverified');
    return result;
  });
}

/** The application's `onEvent` for a verified, new delivery: a span `adcp.webhook.handler` with its ids. */
export function traceWebhookHandler(
  event: {
    operationId: string | undefined;
    taskId: string | undefined;
    status: string | null;
    taskType: string | undefined;
  },
  run: () => Promise<void>,
): Promise<void> {
  return inSpan(
    'adcp.webhook.handler',
    () => ({
      attributes: {
        [ADCP_ATTR.operationId]: safeId(event.operationId),
        [ADCP_ATTR.taskId]: safeId(event.taskId),
        [ADCP_ATTR.status]: safeId(event.status ?? undefined),
        [ADCP_ATTR.tool]: safeId(event.taskType),
      },
    }),
    () => run(),
  );
}

/** The emitter's outcome of one delivery, as `createWebhookEmitter` returns it. */
interface SendOutcome {
  ok: boolean;
  attempts: number;
  reason?: string;
}

/**
 * One webhook delivery sent (every attempt under it): a PRODUCER span `adcp.webhook.send` with
 * the destination (no query), the attempts and the outcome; dead letters counted by reason.
 */
export function traceWebhookSend<T extends SendOutcome>(
  url: string,
  ids: { operationId?: unknown; taskId?: unknown; status?: unknown },
  run: () => Promise<T>,
): Promise<T> {
  return inSpan(
    'adcp.webhook.send',
    () => ({
      kind: 'producer',
      attributes: {
        ...urlAttributes(url),
        [ADCP_ATTR.operationId]: safeId(ids.operationId),
        [ADCP_ATTR.taskId]: safeId(ids.taskId),
        [ADCP_ATTR.status]: safeId(ids.status),
      },
    }),
    async (span) => {
      const outcome = await run();
      span.set('adcp.webhook.attempts', outcome.attempts);
      span.set('adcp.webhook.outcome', outcome.ok ? 'delivered' : (safeId(outcome.reason) ?? 'failed'));
      if (!outcome.ok) {
        span.fail(safeId(outcome.reason) ?? 'failed');
        meters()?.emitterDeadLetters.add(1, { 'adcp.webhook.reason': safeId(outcome.reason) ?? 'failed' });
      }
      return outcome;
    },
  );
}

/**
 * One attempt of a delivery: counted (`adcp.webhook.emitter.attempts`, and `.retries` from the
 * second on) and reported to `listener` as a `webhook` `sent` activity event.
 */
export function noteWebhookAttempt(
  listener: ActivityListener | undefined,
  attempt: { idempotencyKey: string; attempt: number; status?: number; nextDelayMs?: number },
): void {
  const final = attempt.nextDelayMs === undefined;
  const delivered = attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
  const outcome = final ? (delivered ? 'delivered' : 'failed') : undefined;
  const m = meters();
  m?.emitterAttempts.add(1, outcome === undefined ? {} : { 'adcp.webhook.outcome': outcome });
  if (attempt.attempt > 1) m?.emitterRetries.add(1);
  const traceId = activeTraceId();
  emitActivity(listener, {
    type: 'webhook',
    direction: 'sent',
    at: Date.now(),
    attempt: attempt.attempt,
    idempotencyKey: safeId(attempt.idempotencyKey) ?? '',
    ...(attempt.status === undefined ? {} : { httpStatus: attempt.status }),
    ...(outcome === undefined ? {} : { outcome }),
    ...(traceId === undefined ? {} : { traceId }),
  });
}
