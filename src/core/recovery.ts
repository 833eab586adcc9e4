import type { AdcpError, Recovery, RecoveryAction } from './types.js';
import { sanitizeSellerText } from './sanitize.js';
import type { ResultError } from './task-result.js';

const STANDARD_CODES = [
  ['RATE_LIMITED', 'transient'],
  ['SERVICE_UNAVAILABLE', 'transient'],
  ['CONFLICT', 'transient'],
  ['STALE_RESPONSE', 'transient'],
  ['INVALID_REQUEST', 'correctable'],
  ['VALIDATION_ERROR', 'correctable'],
  ['AUTH_MISSING', 'correctable'],
  ['AUTH_REQUIRED', 'correctable'],
  ['AUTH_INVALID', 'terminal'],
  ['CREDENTIAL_IN_ARGS', 'terminal'],
  ['POLICY_VIOLATION', 'correctable'],
  ['COMPLIANCE_UNSATISFIED', 'correctable'],
  ['GOVERNANCE_DENIED', 'correctable'],
  ['UNSUPPORTED_FEATURE', 'correctable'],
  ['PRODUCT_NOT_FOUND', 'correctable'],
  ['PRODUCT_EXPIRED', 'correctable'],
  ['PRODUCT_UNAVAILABLE', 'correctable'],
  ['PROPOSAL_EXPIRED', 'correctable'],
  ['PROPOSAL_NOT_FOUND', 'correctable'],
  ['MULTI_FINALIZE_UNSUPPORTED', 'correctable'],
  ['REQUOTE_REQUIRED', 'correctable'],
  ['AUDIENCE_TOO_SMALL', 'correctable'],
  ['BUDGET_TOO_LOW', 'correctable'],
  ['BUDGET_EXHAUSTED', 'terminal'],
  ['CREATIVE_REJECTED', 'correctable'],
  ['CREATIVE_NOT_FOUND', 'correctable'],
  ['SIGNAL_NOT_FOUND', 'correctable'],
  ['MEDIA_BUY_NOT_FOUND', 'correctable'],
  ['PACKAGE_NOT_FOUND', 'correctable'],
  ['SESSION_NOT_FOUND', 'correctable'],
  ['SESSION_TERMINATED', 'correctable'],
  ['PLAN_NOT_FOUND', 'correctable'],
  ['REFERENCE_NOT_FOUND', 'correctable'],
  ['ACCOUNT_MOVED', 'correctable'],
  ['ACCOUNT_IDENTITY_CONFLICT', 'correctable'],
  ['ACCOUNT_SETUP_REQUIRED', 'correctable'],
  ['ACCOUNT_AMBIGUOUS', 'correctable'],
  ['ACCOUNT_NOT_FOUND', 'terminal'],
  ['ACCOUNT_PAYMENT_REQUIRED', 'terminal'],
  ['ACCOUNT_SUSPENDED', 'terminal'],
  ['BILLING_NOT_SUPPORTED', 'correctable'],
  ['BILLING_NOT_PERMITTED_FOR_AGENT', 'correctable'],
  ['PAYMENT_TERMS_NOT_SUPPORTED', 'correctable'],
  ['BRAND_REQUIRED', 'correctable'],
  ['PERMISSION_DENIED', 'correctable'],
  ['SCOPE_INSUFFICIENT', 'correctable'],
  ['READ_ONLY_SCOPE', 'correctable'],
  ['FIELD_NOT_PERMITTED', 'correctable'],
  ['AGENT_SUSPENDED', 'terminal'],
  ['AGENT_BLOCKED', 'terminal'],
  ['CONFIGURATION_ERROR', 'terminal'],
  ['IDEMPOTENCY_CONFLICT', 'correctable'],
  ['IDEMPOTENCY_EXPIRED', 'correctable'],
  ['IDEMPOTENCY_IN_FLIGHT', 'transient'],
  ['VERSION_UNSUPPORTED', 'correctable'],
  ['INVALID_STATE', 'correctable'],
  ['NOT_CANCELLABLE', 'correctable'],
  ['BUDGET_EXCEEDED', 'correctable'],
  ['TERMS_REJECTED', 'correctable'],
  ['GOVERNANCE_UNAVAILABLE', 'transient'],
  ['CAMPAIGN_SUSPENDED', 'transient'],
] as const satisfies readonly (readonly [string, Recovery])[];

/** The standard error codes the library knows the registered recovery of (error-code.json `enumMetadata`). */
export type StandardErrorCode = (typeof STANDARD_CODES)[number][0];

/**
 * Recovery of the standard codes, for errors that carry no `recovery` (transport-errors.md,
 * "When `recovery` is absent"; error-handling.md, "Standard Error Codes"). A `Map`, so seller
 * codes such as `constructor` or `__proto__` never read `Object.prototype`.
 */
export const STANDARD_CODE_RECOVERY: ReadonlyMap<string, Recovery> = new Map<string, Recovery>(STANDARD_CODES);

const RECOVERIES: ReadonlySet<unknown> = new Set(['transient', 'correctable', 'terminal']);

/** Clamp bounds of `retry_after`, in seconds (transport-errors.md, "retry_after bounds"). */
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 3600;

/**
 * The recovery class of an error: its `recovery` when it is one of the three known values, an
 * unknown `recovery` value gives `terminal`; with no `recovery` at all, the standard code table,
 * and `terminal` for a code the table does not know.
 */
export function getRecovery(error: Pick<AdcpError, 'code' | 'recovery'>): Recovery {
  const recovery: unknown = error.recovery;
  if (recovery !== undefined && recovery !== null) {
    return RECOVERIES.has(recovery) ? (recovery as Recovery) : 'terminal';
  }
  return STANDARD_CODE_RECOVERY.get(error.code) ?? 'terminal';
}

export interface RecoveryActionOptions {
  /**
   * Whether the failing request carried credentials. `AUTH_REQUIRED` then means "rejected", which
   * must not be retried (error-handling.md, "`AUTH_REQUIRED` sub-cases").
   */
  requestHadCredentials?: boolean;
}

/**
 * What the caller should do: `retry` (transient), `surface_to_caller` (correctable),
 * `escalate_to_human` (terminal), or `generic_error` when no structured error was found.
 * Decided from `code` and `recovery` only, never from seller prose.
 */
export function recoveryAction(
  error: AdcpError | null | undefined,
  options: RecoveryActionOptions = {},
): RecoveryAction {
  if (error === null || error === undefined) return 'generic_error';
  if (error.code === 'AUTH_REQUIRED' && options.requestHadCredentials === true) return 'escalate_to_human';
  // Per-agent provisioning gate: terminal-pending-onboarding whatever the wire recovery says.
  if (error.code === 'PERMISSION_DENIED' && isAgentScope(error.details)) return 'escalate_to_human';
  switch (getRecovery(error)) {
    case 'transient':
      return 'retry';
    case 'correctable':
      return 'surface_to_caller';
    case 'terminal':
      return 'escalate_to_human';
  }
}

function isAgentScope(details: unknown): boolean {
  return typeof details === 'object' && details !== null && (details as { scope?: unknown }).scope === 'agent';
}

/**
 * Seconds to wait before retrying: `retry_after` rounded up, then clamped to 1..3600. Returns
 * `null` (meaning: exponential backoff) when `retry_after` is absent, not a number or not finite.
 */
export function retryDelaySeconds(error: Pick<AdcpError, 'retry_after'> | null | undefined): number | null {
  const raw: unknown = error?.retry_after;
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return null;
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, Math.ceil(raw)));
}

/** The `ResultError` of a `failed`/`rejected` TaskResult: the validated error plus what to do about it. */
export function toResultError(adcpError: AdcpError, options: RecoveryActionOptions = {}): ResultError {
  const message = sanitizeSellerText(adcpError.message)?.trim();
  return {
    adcpError,
    code: adcpError.code,
    ...(message === undefined || message === '' ? {} : { message }),
    recovery: getRecovery(adcpError),
    action: recoveryAction(adcpError, options),
    retryDelaySeconds: retryDelaySeconds(adcpError),
  };
}
