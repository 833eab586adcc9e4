import type { DedupStore, OperationRecord, OperationStore } from '../store/types.js';
import { readHeader, type HeaderSource } from '../signing/signature-base.js';
import type { ReplayStore } from '../signing/replay-store.js';
import { authenticateWebhook } from './authenticate-webhook.js';
import { readWebhookEvent, type ParsedDelivery } from './read-webhook-event.js';
import type { WebhookEvent, WebhookHandlerOptions } from './handler-types.js';

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

/** The resolved options the pipeline runs with (defaults applied once, at handler creation). */
export interface DeliveryContext {
  options: WebhookHandlerOptions;
  dedup: DedupStore;
  operations: OperationStore | undefined;
  replay: ReplayStore | undefined;
  leaseMs: number;
  dedupTtlMs: number;
  now: () => number;
  notify: (record: OperationRecord) => void;
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

  const auth = await authenticateWebhook(
    ctx.options.signature,
    { ...request, body },
    {
      agent: ctx.options.agent,
      nowMs,
      replay: ctx.replay,
    },
  );
  if (!auth.ok) {
    const headers: Record<string, string> = {};
    if (auth.challenge !== undefined) headers['www-authenticate'] = auth.challenge;
    if (auth.retryAfter !== undefined) headers['retry-after'] = auth.retryAfter;
    return { status: auth.status, reason: auth.reason, headers };
  }

  const read = readWebhookEvent(body, ctx.options.format);
  if (!read.ok)
    return { status: 400, reason: read.reason, ...(read.detail !== undefined ? { detail: read.detail } : {}) };
  const delivery = read.delivery;
  const scope = auth.sender.scope;

  let claim;
  let advanced: Advanced | undefined;
  try {
    // A store that can claim and advance in one step (PostgreSQL) saves round trips; with no
    // handler to run in between, it completes the key in that same step too.
    const combined = await claimAndAdvance(ctx, delivery, scope, nowMs);
    claim =
      combined ??
      (await ctx.dedup.claim(scope, delivery.dedupKey, {
        leaseMs: ctx.leaseMs,
        now: nowMs,
        fingerprint: delivery.fingerprint,
      }));
    if (combined?.kind === 'claimed')
      advanced = { applied: combined.applied, record: combined.record, completed: ctx.options.onEvent === undefined };
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
  let event: WebhookEvent;
  try {
    event = await buildEvent(
      ctx,
      delivery,
      auth.sender,
      { scope, key: delivery.dedupKey, token, ttlMs: ctx.dedupTtlMs },
      nowMs,
      advanced,
    );
  } catch (error) {
    await release();
    if (error instanceof OperationMismatch) return { status: 409, reason: `operation_${error.field}_mismatch` };
    return { status: 503, reason: 'store_unavailable', headers: { 'retry-after': '5' }, detail: describe(error) };
  }
  if (ctx.options.onEvent !== undefined) {
    try {
      await ctx.options.onEvent(event);
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
  nowMs: number,
  advanced: Advanced | undefined,
): Promise<WebhookEvent> {
  let operationId = delivery.operationId;
  if (delivery.format === 'a2a' && delivery.a2aTaskId !== undefined) {
    operationId =
      ctx.options.resolveA2AOperationId !== undefined
        ? await ctx.options.resolveA2AOperationId(delivery.a2aTaskId)
        : delivery.a2aTaskId;
  }
  const statusAt = clampStatusAt(delivery, nowMs);
  let operation: OperationRecord | undefined;
  let stale = false;
  if (ctx.operations !== undefined && operationId !== undefined && delivery.status !== null) {
    const update = operationUpdate(delivery, delivery.status, statusAt, nowMs);
    let outcome: { applied: boolean; record: OperationRecord | undefined } | undefined = advanced;
    if (outcome === undefined) {
      const current = await ctx.operations.get(operationId);
      // The payload names the operation, but only its own seller and task type may move it: a
      // verified sender echoing another seller's operation_id, or another task's, is refused.
      if (current !== undefined) {
        if (ctx.options.agent !== undefined && current.agent !== ctx.options.agent)
          throw new OperationMismatch('agent');
        if (delivery.taskType !== undefined && current.taskType !== delivery.taskType)
          throw new OperationMismatch('task_type');
      }
      outcome = await ctx.operations.advance(operationId, {
        ...update,
        ...createIfMissing(ctx, delivery, sender.scope),
      });
    }
    operation = outcome.record;
    if (outcome.applied && operation !== undefined) ctx.notify(operation);
    // A redelivery of the event that set the current state is not stale (its handler may have failed).
    stale =
      !outcome.applied &&
      operation !== undefined &&
      !(operation.status === update.status && operation.statusAt === statusAt);
  }
  return {
    format: delivery.format,
    idempotencyKey: delivery.dedupKey,
    operationId,
    taskId: delivery.taskId ?? delivery.a2aTaskId,
    taskType: delivery.taskType,
    status: delivery.status,
    statusAt,
    data: delivery.data,
    message: delivery.message,
    payload: delivery.payload,
    sender,
    operation,
    stale,
    claim,
  };
}

type Advanced = { applied: boolean; record: OperationRecord | undefined; completed: boolean };

/**
 * The dedup claim and the operation's advance as one store call, when the store offers it and the
 * operation is known before the claim (an A2A task resolved by the caller's function is not);
 * `undefined`: make the separate calls.
 */
async function claimAndAdvance(ctx: DeliveryContext, delivery: ParsedDelivery, scope: string, nowMs: number) {
  const operationId =
    delivery.format === 'a2a' && delivery.a2aTaskId !== undefined ? delivery.a2aTaskId : delivery.operationId;
  if (
    ctx.dedup.claimAndAdvance === undefined ||
    ctx.operations === undefined ||
    operationId === undefined ||
    delivery.status === null
  )
    return undefined;
  if (delivery.format === 'a2a' && delivery.a2aTaskId !== undefined && ctx.options.resolveA2AOperationId !== undefined)
    return undefined;
  return ctx.dedup.claimAndAdvance({
    scope,
    key: delivery.dedupKey,
    leaseMs: ctx.leaseMs,
    now: nowMs,
    fingerprint: delivery.fingerprint,
    ...(ctx.options.onEvent === undefined ? { complete: { ttlMs: ctx.dedupTtlMs } } : {}),
    operations: ctx.operations,
    operationId,
    update: {
      ...operationUpdate(delivery, delivery.status, clampStatusAt(delivery, nowMs), nowMs),
      ...createIfMissing(ctx, delivery, scope),
    },
    expect: {
      ...(ctx.options.agent !== undefined ? { agent: ctx.options.agent } : {}),
      ...(delivery.taskType !== undefined ? { taskType: delivery.taskType } : {}),
    },
  });
}

// A payload timestamp far in the future would freeze the operation (every later event would
// look older), so it counts as "now" at most a minute ahead.
function clampStatusAt(delivery: ParsedDelivery, nowMs: number): number {
  return Math.min(delivery.statusAt ?? nowMs, nowMs + 60_000);
}

function operationUpdate(
  delivery: ParsedDelivery,
  status: NonNullable<ParsedDelivery['status']>,
  statusAt: number,
  nowMs: number,
) {
  return {
    status,
    statusAt,
    now: nowMs,
    ...(delivery.taskId !== undefined ? { taskId: delivery.taskId } : {}),
    ...(delivery.data !== null ? { result: delivery.data } : {}),
  };
}

function createIfMissing(ctx: DeliveryContext, delivery: ParsedDelivery, scope: string) {
  return delivery.taskType !== undefined
    ? { createIfMissing: { agent: ctx.options.agent ?? scope, taskType: delivery.taskType } }
    : {};
}

function readContentType(headers: HeaderSource): string | undefined {
  return readHeader(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class OperationMismatch extends Error {
  constructor(readonly field: 'agent' | 'task_type') {
    super(`operation ${field} mismatch`);
  }
}
