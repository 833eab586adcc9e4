import { parseJsonStrict } from '../core/json.js';
import { validateWebhookEnvelope } from '../core/webhook-envelope.js';
import { detectWebhookFormat, extractWebhookPayload } from '../core/webhook-payload.js';
import { readStreamEnvelope } from '../core/unwrap-stream-envelope.js';
import { sanitizeSellerText } from '../core/sanitize.js';
import type { JsonObject, TaskStatus } from '../core/types.js';
import { payloadFingerprint } from './canonical-json.js';
import { WEBHOOK_BODY_MALFORMED } from '../signing/signature-codes.js';

/** What the receiver needs from a verified body before dedup and dispatch. */
export interface ParsedDelivery {
  format: 'mcp' | 'a2a';
  dedupKey: string;
  fingerprint: string;
  operationId: string | undefined;
  a2aTaskId: string | undefined;
  taskId: string | undefined;
  taskType: string | undefined;
  status: TaskStatus | null;
  statusAt: number | undefined;
  data: JsonObject | null;
  message: string | undefined;
  payload: JsonObject;
}

export type ReadOutcome =
  { ok: true; delivery: ParsedDelivery } | { ok: false; status: 400; reason: string; detail?: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Strict JSON (duplicate keys are `webhook_body_malformed`, distinct from any signature failure),
 * then the MCP envelope checks or the A2A Task/update shape. A bare result, a bare `{ message }`
 * or an A2A Message are refused (400): only envelopes carrying a task state are webhooks.
 */
export function readWebhookEvent(body: Buffer, knownFormat: 'mcp' | 'a2a' | undefined, release?: string): ReadOutcome {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, status: 400, reason: 'invalid_utf8' };
  }
  const parsed = parseJsonStrict(text);
  if (!parsed.ok) {
    if (parsed.reason === 'duplicate_key')
      return { ok: false, status: 400, reason: WEBHOOK_BODY_MALFORMED, detail: 'duplicate object key' };
    return { ok: false, status: 400, reason: 'invalid_json' };
  }
  const payload = parsed.value;
  const format = knownFormat ?? detectWebhookFormat(payload) ?? 'mcp';
  return format === 'a2a' ? readA2A(payload) : readMcp(payload, release);
}

function readMcp(payload: unknown, release: string | undefined): ReadOutcome {
  const check = validateWebhookEnvelope(payload, release === undefined ? {} : { release });
  if (!check.ok) {
    return {
      ok: false,
      status: 400,
      reason: `envelope_${check.error}`,
      ...(check.field !== undefined ? { detail: check.field } : {}),
    };
  }
  const envelope = check.envelope;
  const extracted = extractWebhookPayload(envelope, { knownFormat: 'mcp' });
  const statusAt = Date.parse(envelope.timestamp);
  return {
    ok: true,
    delivery: {
      format: 'mcp',
      dedupKey: envelope.idempotency_key,
      fingerprint: payloadFingerprint(envelope),
      operationId: envelope.operation_id,
      a2aTaskId: undefined,
      taskId: envelope.task_id,
      taskType: envelope.task_type,
      status: extracted.status,
      statusAt: Number.isNaN(statusAt) ? undefined : statusAt,
      data: extracted.data,
      message: sanitizeSellerText(envelope.message),
      payload: envelope,
    },
  };
}

function readA2A(payload: unknown): ReadOutcome {
  const envelope = readStreamEnvelope(payload);
  if (envelope === null) return { ok: false, status: 400, reason: 'a2a_nested_envelope' };
  if (envelope.kind === 'message') return { ok: false, status: 400, reason: 'a2a_message_is_not_a_task_update' };
  const inner = envelope.value;
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
    return { ok: false, status: 400, reason: 'not_an_object' };
  const record = inner as JsonObject;
  const taskId =
    typeof record['taskId'] === 'string'
      ? record['taskId']
      : typeof record['id'] === 'string'
        ? record['id']
        : undefined;
  if (taskId === undefined || taskId === '') return { ok: false, status: 400, reason: 'a2a_missing_task_id' };
  const extracted = extractWebhookPayload(payload, { knownFormat: 'a2a' });
  if (extracted.status === null && envelope.kind !== 'artifactUpdate')
    return { ok: false, status: 400, reason: 'a2a_missing_state' };
  const status = record['status'];
  const stamp = typeof status === 'object' && status !== null ? (status as JsonObject)['timestamp'] : undefined;
  const statusAt = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
  const fingerprint = payloadFingerprint(payload);
  const message = extractA2AText(status);
  return {
    ok: true,
    delivery: {
      format: 'a2a',
      // A2A pushes carry no idempotency_key: an exact redelivery (same canonical payload) is the duplicate.
      dedupKey: `a2a:${fingerprint}`,
      fingerprint,
      operationId: undefined,
      a2aTaskId: taskId,
      taskId: undefined,
      taskType: undefined,
      status: extracted.status,
      statusAt: Number.isNaN(statusAt) ? undefined : statusAt,
      data: extracted.data,
      message,
      payload: payload as JsonObject,
    },
  };
}

function extractA2AText(status: unknown): string | undefined {
  if (typeof status !== 'object' || status === null) return undefined;
  const message = (status as JsonObject)['message'];
  if (typeof message !== 'object' || message === null) return undefined;
  const parts = (message as JsonObject)['parts'];
  if (!Array.isArray(parts)) return undefined;
  for (const part of parts) {
    if (typeof part === 'object' && part !== null && typeof (part as JsonObject)['text'] === 'string') {
      return sanitizeSellerText((part as JsonObject)['text']);
    }
  }
  return undefined;
}
