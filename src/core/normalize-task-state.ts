import { TASK_STATUSES, type TaskStatus } from './types.js';

const PREFIX = 'TASK_STATE_';

/**
 * Normalises an A2A task state (1.0 `TASK_STATE_INPUT_REQUIRED` or v0.3 `input-required`) to
 * the AdCP status token, or `null` when it is not a string or not one of the eight known states.
 *
 * Spec (a2a-response-extraction, step 1): strip a `TASK_STATE_` prefix, lowercase, underscores to
 * hyphens, then compare by exact ASCII equality. Only `A`-`Z` are lowercased:
 * `String.prototype.toLowerCase` would fold e.g. `İ` (U+0130) or the Kelvin sign (U+212A) into
 * ASCII letters and let a disguised state through. No trimming, no collapsing of separators.
 */
export function normalizeTaskState(state: unknown): TaskStatus | null {
  if (typeof state !== 'string') return null;
  // The longest known token is `TASK_STATE_INPUT_REQUIRED` (25 chars); anything longer is unknown.
  if (state.length > 32) return null;
  const rest = state.startsWith(PREFIX) ? state.slice(PREFIX.length) : state;
  let out = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if (c >= 65 && c <= 90) out += String.fromCharCode(c + 32);
    else if (c === 95) out += '-';
    else out += rest[i];
  }
  return isTaskStatus(out) ? out : null;
}

/** True when `value` is one of the eight AdCP task statuses, compared exactly. */
export function isTaskStatus(value: unknown): value is TaskStatus {
  return typeof value === 'string' && (TASK_STATUSES as readonly string[]).includes(value);
}
