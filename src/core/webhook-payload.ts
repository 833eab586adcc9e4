import { locateA2AData } from './locate-a2a-data.js';
import { isTaskStatus } from './normalize-task-state.js';
import { isPlainObject } from './plain-object.js';
import type { JsonObject, TaskStatus } from './types.js';
import { readStreamEnvelope } from './unwrap-stream-envelope.js';

export type WebhookFormat = 'mcp' | 'a2a';

export interface WebhookPayload {
  /** Detected (or given) format; `null` when the payload is neither. */
  format: WebhookFormat | null;
  /** The AdCP status: the MCP `status`, or the normalised A2A `status.state`; `null` if unknown. */
  status: TaskStatus | null;
  /** The AdCP data: MCP `result`, or the A2A extraction result; `null` when there is none. */
  data: JsonObject | null;
  /** Why an A2A payload gave no data although it had some shape of it. */
  problem?: 'wrapper_detected' | 'nested_envelope' | 'too_large' | 'unknown_state';
}

export interface WebhookPayloadOptions {
  /**
   * The format the receiver configured. Preferred over detection (webhooks.md, "Security
   * requirements": a crafted ambiguous payload could route extraction to the wrong path).
   */
  knownFormat?: WebhookFormat;
  /** Largest A2A DataPart returned, in UTF-8 bytes of its JSON (default 1 MiB). */
  maxDataPartBytes?: number;
}

/**
 * Detects a webhook payload's format (webhooks.md, "Format detection"): `status` an object with
 * `.state` is A2A, `status` a string with `task_id` is MCP; an A2A 1.0 `StreamResponse` envelope
 * (`{ task }`, `{ statusUpdate }`, `{ artifactUpdate }`, `{ message }`) is A2A too.
 */
export function detectWebhookFormat(payload: unknown): WebhookFormat | null {
  if (!isPlainObject(payload)) return null;
  const status = payload['status'];
  if (isPlainObject(status) && status['state'] !== undefined && status['state'] !== null) return 'a2a';
  if (typeof status === 'string' && isPresent(payload['task_id'])) return 'mcp';
  const envelope = readStreamEnvelope(payload);
  if (envelope === null || envelope.kind !== 'bare') return 'a2a';
  const kind = payload['kind'];
  if ((kind === 'artifact-update' || kind === 'status-update') && isPresent(payload['taskId'])) return 'a2a';
  return null;
}

/**
 * Extracts the AdCP status and data of a webhook payload (webhooks.md, "Payload extraction"):
 * MCP flat envelopes give their `result`; A2A Tasks, status/artifact updates and 1.0 stream
 * envelopes go through the A2A extraction algorithm (last DataPart of `artifacts[0]` for final
 * states, first DataPart of `status.message.parts` for interim ones). Never throws on seller input:
 * a `{ response: {...} }` wrapper gives `data: null` with `problem: 'wrapper_detected'`.
 * The data is returned by reference, not copied; do not merge it into other objects unfiltered.
 */
export function extractWebhookPayload(payload: unknown, options: WebhookPayloadOptions = {}): WebhookPayload {
  const format = options.knownFormat ?? detectWebhookFormat(payload);
  if (format === 'mcp') {
    if (!isPlainObject(payload)) return { format, status: null, data: null };
    const status = payload['status'];
    const result = payload['result'];
    return { format, status: isTaskStatus(status) ? status : null, data: isPlainObject(result) ? result : null };
  }
  if (format === 'a2a') {
    const located = locateA2AData(
      payload,
      options.maxDataPartBytes === undefined ? {} : { maxDataPartBytes: options.maxDataPartBytes },
    );
    const out: WebhookPayload = { format, status: located.state, data: located.data ?? null };
    if (located.outcome === 'wrapper') out.problem = 'wrapper_detected';
    else if (
      located.outcome === 'nested_envelope' ||
      located.outcome === 'too_large' ||
      located.outcome === 'unknown_state'
    ) {
      out.problem = located.outcome;
    }
    return out;
  }
  return { format: null, status: null, data: null };
}

function isPresent(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}
