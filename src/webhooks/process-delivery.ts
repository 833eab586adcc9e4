import type { ClaimAndAdvanceRequest, DedupStore, OperationRecord, OperationStore } from '../store/types.js';
import { checkWebhookResult } from './check-webhook-result.js';
import { readHeader, type HeaderSource } from '../signing/signature-base.js';
import { authenticateWebhook, type ResolvedSignature } from './authenticate-webhook.js';
import { readWebhookEvent, type ParsedDelivery } from './read-webhook-event.js';
import type { WebhookEvent, WebhookHandlerOptions } from './handler-types.js';
import { traceVerification, traceWebhookHandler } from '../telemetry/webhook-tracing.js';

/** A request as the pipeline sees it; the adapters produce it (`body: 'too_large'` once past the cap). */
export interface IncomingDelivery {
  method: string;
  url: string;
  headers: HeaderSource;
  body: Buffer | 'too_large';
}

export interface DeliveryAnswer {
  status: number;
  reason: string;
  headers?: Record<string, string>;
  detail?: string;
}

/** The resolved options the pipeline runs with (checked and defaulted once, at handler creation). */
export interface DeliveryContext {
  signature: ResolvedSignature;
  agent: string | undefined;
  format: WebhookHandlerOptions['format'];
  onEvent: WebhookHandlerOptions['onEvent'];
  resolveA2AOperationId: WebhookHandlerOptions['resolveA2AOperationId'];
  dedup: DedupStore;
  operations: OperationStore | undefined;
  leaseMs: number;
  dedupTtlMs: number;
  now: () => number;
  notify: (record: OperationRecord) => void;
  /** The release results are validated against, when the handler validates. */
  validateRelease?: string | undefined;
  /** The release the sender speaks, for the envelope's required fields (`adcpVersion`). */
  release?: string | undefined;
}

/**
 * The receiver's order of checks (issue 5; webhooks.md "Security requirements" and "Reliability"):
 * method -> content type -> size (already capped while reading) -> signature -> strict JSON ->
 * envelope -> dedup claim (`done` 200, `busy` 503 + Retry-After, `conflict` 409) -> operation
 * advanced -> caller's handler -> key completed -> 200. A handler failure releases the key and
 * answers 500, so the sender's retry runs it again.
 */
export async function processDelivery(ctx: DeliveryContext, request: IncomingDelivery): Promise<DeliveryAnswer> {
  if (request.method !== 'POST') return { status: 405, reason: 'method_not_allowed', headers: { allow: 'POST' } };
  const contentType = readContentType(request.headers);
  if (contentType !== 'application/json') return { status: 415, reason: 'unsupported_media_type' };
  if (request.body === 'too_large')
    return { status: 413, reason: 'payload_too_large', headers: { connection: 'close' } };
  const body = request.body;
  const nowMs = ctx.now();

  const auth = await traceVerification(() =>
    authenticateWebhook(ctx.signature, { ...request, body }, { agent: ctx.agent, nowMs }),
  );
  if (!auth.ok) {
    const headers: Record<string, string> = {};
    if (auth.challenge !== undefined) headers['www-authenticate'] = auth.challenge;
    if (auth.retryAfter !== undefined) headers['retry-after'] = auth.retryAfter;
    return { status: auth.status, reason: auth.reason, headers };
  }

  const read = readWebhookEvent(body, ctx.format, ctx.release);
  if (!read.ok)
    return { status: 400, reason: read.reason, ...(read.detail !== undefined ? { detail: read.detail } : {}) };
  const delivery = read.delivery;
  const scope = auth.sender.scope;

  const plan = planOperation(ctx, delivery, scope, nowMs);
  let claim;
  let advanced: Advanced | undefined;
  try {
    // A store that can claim and advance in one step (PostgreSQL) saves round trips; with no
    // handler to run in between, it completes the key in that same step too.
    const combined = await claimAndAdvance(ctx, delivery, scope, nowMs, plan);
    claim =
      combined ??
      (await ctx.dedup.claim(scope, delivery.dedupKey, {
        leaseMs: ctx.leaseMs,
        now: nowMs,
        fingerprint: delivery.fingerprint,
      }));
    if (combined?.kind === 'claimed')
      advanced = { applied: combined.applied, record: combined.record, completed: ctx.onEvent === undefined };
  } catch (error) {
    return { status: 503, reason: 'store_unavailable', headers: { 'retry-after': '5' }, detail: describe(error) };
  }
  if (claim.kind === 'done') return { status: 200, reason: 'duplicate' };
  if (claim.kind === 'conflict') return { status: 409, reason: 'idempotency_key_reused_with_different_payload' };
  if (claim.kind === 'mismatch') return { status: 409, reason: `operation_${claim.field}_mismatch` };
  if (claim.kind === 'busy') {
    const seconds = Math.min(60, Math.max(1, Math.ceil((claim.leaseExpiresAt - nowMs) / 1000)));
    return { status: 503, reason: 'in_progress', headers: { 'retry-after': String(seconds) } };
  }

  const token = claim.token;
  const release = async (): Promise<void> => {
    try {
      await ctx.dedup.release(scope, delivery.dedupKey, token);
    } catch {
      // The lease expires on its own; the retry reclaims it then.
    }
  };
  let built: Awaited<ReturnType<typeof buildEvent>>;
  try {
    built = await buildEvent(
      ctx,
      delivery,
      auth.sender,
      { scope, key: delivery.dedupKey, token, ttlMs: ctx.dedupTtlMs },
      plan,
      advanced,
    );
  } catch (error) {
    await release();
    return { status: 503, reason: 'store_unavailable', headers: { 'retry-after': '5' }, detail: describe(error) };
  }
  if (built.kind === 'mismatch') {
    await release();
    return { status: 409, reason: `operation_${built.field}_mismatch` };
  }
  const event = built.event;
  if (ctx.onEvent !== undefined) {
    try {
      const onEvent = ctx.onEvent;
      await traceWebhookHandler(event, async () => onEvent(event));
    } catch (error) {
      await release();
      return { status: 500, reason: 'handler_failed', detail: describe(error) };
    }
  }
  if (advanced?.completed === true) return { status: 200, reason: 'accepted' };
  try {
    await ctx.dedup.complete(scope, delivery.dedupKey, token, { ttlMs: ctx.dedupTtlMs, now: ctx.now() });
  } catch (error) {
    // The handler ran; answering 5xx would make the sender retry and run it again.
    return { status: 200, reason: 'accepted_completion_unrecorded', detail: describe(error) };
  }
  return { status: 200, reason: 'accepted' };
}

async function buildEvent(
  ctx: DeliveryContext,
  delivery: ParsedDelivery,
  sender: WebhookEvent['sender'],
  claim: WebhookEvent['claim'],
  plan: OperationPlan,
  advanced: Advanced | undefined,
): Promise<{ kind: 'event'; event: WebhookEvent } | { kind: 'mismatch'; field: 'agent' | 'task_type' }> {
  let operationId = delivery.operationId;
  if (delivery.format === 'a2a' && delivery.a2aTaskId !== undefined) {
    operationId =
      plan.operationId ??
      (ctx.resolveA2AOperationId !== undefined
        ? await ctx.resolveA2AOperationId(delivery.a2aTaskId)
        : delivery.a2aTaskId);
  }
  let operation: OperationRecord | undefined;
  let stale = false;
  if (ctx.operations !== undefined && operationId !== undefined && plan.update !== undefined) {
    let outcome: { applied: boolean; record: OperationRecord | undefined } | undefined = advanced;
    if (outcome === undefined) {
      const current = await ctx.operations.get(operationId);
      // The payload names the operation, but only its own seller and task type may move it: a
      // verified sender echoing another seller's operation_id, or another task's, is refused.
      if (current !== undefined) {
        if (plan.expect.agent !== undefined && current.agent !== plan.expect.agent)
          return { kind: 'mismatch', field: 'agent' };
        if (plan.expect.taskType !== undefined && current.taskType !== plan.expect.taskType)
          return { kind: 'mismatch', field: 'task_type' };
      }
      outcome = await ctx.operations.advance(operationId, plan.update);
    }
    operation = outcome.record;
    if (outcome.applied && operation !== undefined) ctx.notify(operation);
    // A redelivery of the event that set the current state is not stale (its handler may have failed).
    stale =
      !outcome.applied &&
      operation !== undefined &&
      !(operation.status === plan.update.status && operation.statusAt === plan.statusAt);
  }
  const event: WebhookEvent = {
    format: delivery.format,
    idempotencyKey: delivery.dedupKey,
    operationId,
    taskId: delivery.taskId ?? delivery.a2aTaskId,
    taskType: delivery.taskType,
    status: delivery.status,
    statusAt: plan.statusAt,
    data: delivery.data,
    message: delivery.message,
    payload: delivery.payload,
    sender,
    operation,
    stale,
    claim,
  };
  if (ctx.validateRelease !== undefined) {
    const validation = checkWebhookResult(
      delivery.payload,
      delivery.taskType,
      delivery.status,
      delivery.data,
      ctx.validateRelease,
    );
    if (validation !== undefined) event.validation = validation;
  }
  return { kind: 'event', event };
}

/**
 * What a delivery does to its operation, worked out once for both store paths (one combined
 * claim-and-advance, or a claim then an advance): the update (with the operation to create when
 * missing), the agent and task type an existing operation must have, and the operation id when it
 * is known before the claim (`undefined` for an A2A task the caller's resolver names).
 */
interface OperationPlan {
  statusAt: number;
  operationId: string | undefined;
  update: ClaimAndAdvanceRequest['update'] | undefined;
  expect: ClaimAndAdvanceRequest['expect'];
}

function planOperation(ctx: DeliveryContext, delivery: ParsedDelivery, scope: string, nowMs: number): OperationPlan {
  // A payload timestamp far in the future would freeze the operation (every later event would
  // look older), so it counts as "now" at most a minute ahead.
  const statusAt = Math.min(delivery.statusAt ?? nowMs, nowMs + 60_000);
  const resolved = delivery.format === 'a2a' && delivery.a2aTaskId !== undefined;
  const operationId = resolved
    ? ctx.resolveA2AOperationId === undefined
      ? delivery.a2aTaskId
      : undefined
    : delivery.operationId;
  const update =
    delivery.status === null
      ? undefined
      : {
          status: delivery.status,
          statusAt,
          now: nowMs,
          ...(delivery.taskId !== undefined ? { taskId: delivery.taskId } : {}),
          ...(delivery.data !== null ? { result: delivery.data } : {}),
          ...(delivery.taskType !== undefined
            ? { createIfMissing: { agent: ctx.agent ?? scope, taskType: delivery.taskType } }
            : {}),
        };
  return {
    statusAt,
    operationId,
    update,
    expect: {
      ...(ctx.agent !== undefined ? { agent: ctx.agent } : {}),
      ...(delivery.taskType !== undefined ? { taskType: delivery.taskType } : {}),
    },
  };
}

type Advanced = { applied: boolean; record: OperationRecord | undefined; completed: boolean };

/**
 * The dedup claim and the operation's advance as one store call, when the store offers it and the
 * operation is known before the claim (an A2A task resolved by the caller's function is not);
 * `undefined`: make the separate calls.
 */
async function claimAndAdvance(
  ctx: DeliveryContext,
  delivery: ParsedDelivery,
  scope: string,
  nowMs: number,
  plan: OperationPlan,
) {
  if (
    ctx.dedup.claimAndAdvance === undefined ||
    ctx.operations === undefined ||
    plan.operationId === undefined ||
    plan.update === undefined
  )
    return undefined;
  return ctx.dedup.claimAndAdvance({
    scope,
    key: delivery.dedupKey,
    leaseMs: ctx.leaseMs,
    now: nowMs,
    fingerprint: delivery.fingerprint,
    ...(ctx.onEvent === undefined ? { complete: { ttlMs: ctx.dedupTtlMs } } : {}),
    operations: ctx.operations,
    operationId: plan.operationId,
    update: plan.update,
    expect: plan.expect,
  });
}

function readContentType(headers: HeaderSource): string | undefined {
  return readHeader(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
