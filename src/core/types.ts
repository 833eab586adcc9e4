/**
 * Wire types shared by every layer. Wire names stay as on the wire (`retry_after`, `task_id`).
 * See ../shared/spec/upstream/transport-errors.md and task-lifecycle.md.
 */

/** A JSON object as it arrives from a seller: untrusted until checked. */
export type JsonObject = { [key: string]: unknown };

/** The AdCP task statuses (task-lifecycle.md), normalised. */
export const TASK_STATUSES = [
  'submitted',
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'rejected',
  'canceled',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const FINAL_STATUSES = ['completed', 'failed', 'canceled', 'rejected'] as const;
export const INTERIM_STATUSES = ['working', 'submitted', 'input-required', 'auth-required'] as const;

export type Recovery = 'transient' | 'correctable' | 'terminal';
export type RecoveryAction = 'retry' | 'surface_to_caller' | 'escalate_to_human' | 'generic_error';

/** The `adcp_error` object (transport-errors.md, "Error shape"). */
export interface AdcpError {
  code: string;
  message?: string;
  recovery?: Recovery;
  retry_after?: number;
  field?: string;
  suggestion?: string;
  details?: JsonObject;
  [key: string]: unknown;
}
