import { isPlainObject } from './plain-object.js';
import { isTaskStatus } from './normalize-task-state.js';
import type { JsonObject, TaskStatus } from './types.js';

/**
 * The MCP webhook envelope (`mcp-webhook-payload.json`) as a receiver checks it before dispatch
 * (webhooks.md, "Payload anatomy: envelope vs. result"; mcp-guide.md, "MCP Webhook Envelope
 * Fields"). A bare `result` posted as the body is not a webhook.
 */
export interface McpWebhookEnvelope extends JsonObject {
  idempotency_key: string;
  /** Required from AdCP 3.1; a 3.0 sender may leave it out (its schema does not require it). */
  operation_id?: string;
  task_id: string;
  task_type: string;
  status: TaskStatus | 'unknown';
  timestamp: string;
  message?: string;
  result?: JsonObject | null;
}

export type WebhookEnvelopeError =
  | 'not_an_object'
  | 'missing_envelope_fields'
  | 'missing_idempotency_key'
  | 'invalid_idempotency_key'
  | 'invalid_field_type'
  | 'invalid_envelope_status'
  | 'invalid_timestamp'
  | 'invalid_result';

export type WebhookEnvelopeCheck =
  | { ok: true; envelope: McpWebhookEnvelope }
  | { ok: false; error: WebhookEnvelopeError; /** The offending field, when there is one. */ field?: string };

/** Fields whose presence makes a body envelope-shaped; a body with none is a bare result. */
const ENVELOPE_MARKERS = ['idempotency_key', 'operation_id', 'task_id', 'task_type'] as const;
const REQUIRED_STRINGS = ['operation_id', 'task_id', 'task_type', 'timestamp'] as const;
/** AdCP 3.0's `mcp-webhook-payload.json` requires all of these but `operation_id` (added in 3.1). */
const REQUIRED_STRINGS_3_0 = ['task_id', 'task_type', 'timestamp'] as const;
/** security.md: "Schema enforces `^[A-Za-z0-9_.:-]{16,255}$`". */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,255}$/;
/** ISO 8601 / RFC 3339 date-time with seconds and a zone. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks a parsed webhook POST body against the MCP webhook envelope: envelope-shaped at all
 * (`missing_envelope_fields`), then `idempotency_key` present and well-formed, the other required
 * fields present and strings, a known `status`, a date-time `timestamp`, `result` an object when
 * present. Returns the typed envelope, or the first failure. Never throws. `release`: the AdCP
 * release the sender speaks (default 3.1); for a 3.0 sender `operation_id` may be absent, as its
 * schema allows (decision 0243), and must still be a string when present.
 */
export function validateWebhookEnvelope(payload: unknown, options: { release?: string } = {}): WebhookEnvelopeCheck {
  if (!isPlainObject(payload)) return { ok: false, error: 'not_an_object' };
  if (!ENVELOPE_MARKERS.some((key) => Object.hasOwn(payload, key))) {
    return { ok: false, error: 'missing_envelope_fields' };
  }
  const key = payload['idempotency_key'];
  if (key === undefined || key === null)
    return { ok: false, error: 'missing_idempotency_key', field: 'idempotency_key' };
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    return { ok: false, error: 'invalid_idempotency_key', field: 'idempotency_key' };
  }
  const required = /^3\.0(\.|-|$)/.test(options.release ?? '') ? REQUIRED_STRINGS_3_0 : REQUIRED_STRINGS;
  for (const field of [...required, 'status'] as const) {
    const value = payload[field];
    if (value === undefined || value === null) return { ok: false, error: 'missing_envelope_fields', field };
    if (typeof value !== 'string' || value.length === 0) return { ok: false, error: 'invalid_field_type', field };
  }
  const operationId = payload['operation_id'];
  if (operationId !== undefined && (typeof operationId !== 'string' || operationId.length === 0))
    return { ok: false, error: 'invalid_field_type', field: 'operation_id' };
  const status = payload['status'];
  if (!isTaskStatus(status) && status !== 'unknown')
    return { ok: false, error: 'invalid_envelope_status', field: 'status' };
  if (!TIMESTAMP.test(payload['timestamp'] as string) || Number.isNaN(Date.parse(payload['timestamp'] as string))) {
    return { ok: false, error: 'invalid_timestamp', field: 'timestamp' };
  }
  for (const field of ['message', 'context_id', 'notification_id', 'protocol'] as const) {
    const value = payload[field];
    if (value !== undefined && typeof value !== 'string') return { ok: false, error: 'invalid_field_type', field };
  }
  const result = payload['result'];
  if (result !== undefined && result !== null && !isPlainObject(result)) {
    return { ok: false, error: 'invalid_result', field: 'result' };
  }
  return { ok: true, envelope: payload as McpWebhookEnvelope };
}
