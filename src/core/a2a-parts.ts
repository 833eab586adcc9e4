/**
 * Minimal A2A shape helpers for error and webhook extraction (a2a-response-extraction.md,
 * "Wire-Format Compatibility" and step 0). Parts are recognised by field presence, so a 1.0
 * part (no `kind`) and a v0.3 part (`kind: "data"`) both count.
 */

const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['task', 'message', 'statusUpdate', 'artifactUpdate']);

/** A DataPart: its `data` is a non-null, non-array object and it claims no other kind. */
export function isDataPart(part: unknown): part is { data: Record<string, unknown> } {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return false;
  const p = part as Record<string, unknown>;
  const data = p['data'];
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  return p['kind'] === undefined || p['kind'] === 'data';
}

/**
 * Unwraps a 1.0 `StreamResponse` envelope exactly once. Bare objects pass through; a nested
 * envelope (the inner object itself has an envelope key) gives `null`.
 */
export function unwrapOnce(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const keys = Object.keys(input);
  const only = keys[0];
  if (keys.length !== 1 || only === undefined || !ENVELOPE_KEYS.has(only)) return input;
  const inner = (input as Record<string, unknown>)[only];
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return input;
  for (const key of Object.keys(inner)) if (ENVELOPE_KEYS.has(key)) return null;
  return inner;
}
