import type { JsonObject } from './types.js';

/** The A2A 1.0 `StreamResponse` / `SendMessageResponse` oneof keys. */
export const STREAM_ENVELOPE_KEYS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;
export type StreamEnvelopeKind = (typeof STREAM_ENVELOPE_KEYS)[number];

export interface StreamEnvelope {
  /** Which oneof branch carried the value, or `bare` for an unwrapped Task/event (v0.3, `GetTask`). */
  kind: StreamEnvelopeKind | 'bare';
  value: unknown;
}

/**
 * Reads an A2A response envelope (a2a-response-extraction, step 0): a single-key object whose key
 * is `task`, `message`, `statusUpdate` or `artifactUpdate` and whose value is a non-null,
 * non-array object is unwrapped exactly once; anything else passes through as `bare`. Returns
 * `null` for a smuggled envelope: an unwrapped value whose own keys include an envelope key.
 */
export function readStreamEnvelope(input: unknown): StreamEnvelope | null {
  const kind = envelopeKind(input);
  if (kind === undefined) return { kind: 'bare', value: input };
  const inner = (input as JsonObject)[kind] as JsonObject;
  for (const key of STREAM_ENVELOPE_KEYS) {
    if (Object.hasOwn(inner, key)) return null; // nested or smuggled envelope: never recurse
  }
  return { kind, value: inner };
}

/**
 * Unwraps an A2A stream envelope exactly once: the inner Task/event, the input itself when it is
 * not an envelope, or `null` when the envelope is nested or smuggled (treat as malformed).
 */
export function unwrapStreamEnvelope(input: unknown): unknown {
  const envelope = readStreamEnvelope(input);
  return envelope === null ? null : envelope.value;
}

function envelopeKind(input: unknown): StreamEnvelopeKind | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const keys = Object.keys(input);
  if (keys.length !== 1) return undefined;
  const key = keys[0] as StreamEnvelopeKind;
  if (!(STREAM_ENVELOPE_KEYS as readonly string[]).includes(key)) return undefined;
  const value = (input as JsonObject)[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? key : undefined;
}
