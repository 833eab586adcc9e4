import { isFinalStatus } from './final-status.js';
import { dataPartData } from './data-part.js';
import { jsonSizeExceeds } from './json-size.js';
import { normalizeTaskState } from './normalize-task-state.js';
import { isPlainObject } from './plain-object.js';
import type { JsonObject, TaskStatus } from './types.js';
import { readStreamEnvelope, type StreamEnvelopeKind } from './unwrap-stream-envelope.js';

/** Default DataPart size limit: 1 MiB of JSON in UTF-8. */
export const DEFAULT_A2A_MAX_DATAPART_BYTES = 1024 * 1024;

export interface A2AExtractOptions {
  /** Largest DataPart returned, as UTF-8 bytes of its JSON (default 1 MiB). */
  maxDataPartBytes?: number;
  /**
   * For callers behind intermediaries (Security Considerations, "Intermediary injection"): the
   * number of parts `artifacts[0]` must have; any other count returns nothing.
   */
  expectedPartCount?: number;
}

/** Why extraction returned what it did; `data` is set only for `found`. */
export type A2ADataOutcome =
  | 'found'
  | 'no_data' // a known state without a usable DataPart
  | 'no_state' // not a Task/status event: `{ message }`, `{ artifactUpdate }`, non-object
  | 'unknown_state'
  | 'nested_envelope'
  | 'wrapper'
  | 'too_large'
  | 'part_count_mismatch';

export interface A2ADataLocation {
  outcome: A2ADataOutcome;
  /** The object after envelope unwrapping (a Task or event), when it is an object. */
  task: JsonObject | undefined;
  envelope: StreamEnvelopeKind | 'bare' | undefined;
  /** The normalised A2A state, or `null` when absent or unknown. */
  state: TaskStatus | null;
  /** `status.state` as sent. */
  rawState: unknown;
  data: JsonObject | undefined;
  path: 'artifact' | 'status_message' | undefined;
}

/**
 * The A2A extraction algorithm (a2a-response-extraction, steps 0 to 4) with the reason for its
 * answer, for callers that must report more than `null`. Never throws on seller input.
 */
export function locateA2AData(input: unknown, options: A2AExtractOptions = {}): A2ADataLocation {
  const maxBytes = options.maxDataPartBytes ?? DEFAULT_A2A_MAX_DATAPART_BYTES;
  if (!(maxBytes >= 0 && maxBytes < Infinity)) {
    throw new RangeError('maxDataPartBytes must be a finite, non-negative number of bytes');
  }
  const loc: A2ADataLocation = {
    outcome: 'no_state',
    task: undefined,
    envelope: undefined,
    state: null,
    rawState: undefined,
    data: undefined,
    path: undefined,
  };
  // 0. Unwrap exactly once.
  const envelope = readStreamEnvelope(input);
  if (envelope === null) return { ...loc, outcome: 'nested_envelope' };
  loc.envelope = envelope.kind;
  if (!isPlainObject(envelope.value)) return loc;
  const task = envelope.value;
  loc.task = task;
  // 1. Read and normalise status.state.
  const status = task['status'];
  loc.rawState = isPlainObject(status) ? status['state'] : undefined;
  if (loc.rawState === undefined || loc.rawState === null) return loc;
  loc.state = normalizeTaskState(loc.rawState);
  if (loc.state === null) return { ...loc, outcome: 'unknown_state' }; // 4.
  // 2. Final states: last DataPart of artifacts[0], then the status message.
  if (isFinalStatus(loc.state)) {
    const parts = firstArtifactParts(task);
    if (parts !== undefined) {
      if (options.expectedPartCount !== undefined && parts.length !== options.expectedPartCount) {
        return { ...loc, outcome: 'part_count_mismatch' };
      }
      const data = lastDataPart(parts);
      if (data !== undefined) {
        if (isWrapper(data)) return { ...loc, outcome: 'wrapper', path: 'artifact' };
        return withData(loc, data, 'artifact', maxBytes);
      }
    }
  }
  // 3. Interim states (and the final-state fallback): first DataPart of status.message.parts.
  const data = firstMessageDataPart(status as JsonObject);
  if (data === undefined) return { ...loc, outcome: 'no_data' };
  return withData(loc, data, 'status_message', maxBytes);
}

function withData(
  loc: A2ADataLocation,
  data: JsonObject,
  path: 'artifact' | 'status_message',
  maxBytes: number,
): A2ADataLocation {
  if (jsonSizeExceeds(data, maxBytes)) return { ...loc, outcome: 'too_large', path };
  return { ...loc, outcome: 'found', data, path };
}

function firstArtifactParts(task: JsonObject): unknown[] | undefined {
  const artifacts = task['artifacts'];
  if (!Array.isArray(artifacts) || artifacts.length === 0) return undefined;
  const first: unknown = artifacts[0];
  if (!isPlainObject(first)) return undefined;
  const parts = first['parts'];
  return Array.isArray(parts) ? parts : undefined;
}

function lastDataPart(parts: unknown[]): JsonObject | undefined {
  for (let i = parts.length - 1; i >= 0; i--) {
    const data = dataPartData(parts[i]);
    if (data !== undefined) return data;
  }
  return undefined;
}

function firstMessageDataPart(status: JsonObject): JsonObject | undefined {
  const message = status['message'];
  if (!isPlainObject(message)) return undefined;
  const parts = message['parts'];
  if (!Array.isArray(parts)) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const data = dataPartData(parts[i]);
    if (data !== undefined) return data;
  }
  return undefined;
}

/** Step 2c: exactly one key, `response`, holding an object (arrays included, `null` not). */
export function isWrapper(data: JsonObject): boolean {
  const keys = Object.keys(data);
  if (keys.length !== 1 || keys[0] !== 'response') return false;
  const inner = data['response'];
  return typeof inner === 'object' && inner !== null;
}
