import type { A2AProfileErrorCode } from './a2a-profile.js';

/**
 * "We could not talk to the agent or read its answer": the one error class the library throws
 * for transport and protocol failures. The agent refusing a request is not an exception; it is a
 * `failed` TaskResult. Two codes are the agent answering at the protocol level without an AdCP
 * error to put in a result: `not_found` (no such task) and `refused` (a JSON-RPC error such as an
 * unknown tool or method, parameters it will not take, a task that can no longer be cancelled).
 * `profile_violation` is an A2A 1.0 agent breaking the AdCP A2A profile (its card or its answer);
 * `rule` then names the rule (the official vectors' `expected_error`, such as
 * `invalid_send_message_response`).
 */
export const WIRE_ERROR_CODES = [
  'network',
  'timeout',
  'aborted',
  'http_status',
  'response_too_large',
  'protocol',
  'wrapper_detected',
  'unsupported_version',
  'not_found',
  'refused',
  'unsafe_url',
  'store',
  'profile_violation',
] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

export interface WireErrorOptions {
  cause?: unknown;
  /** Whether resending is safe and may succeed (connection refused before sending, 5xx, ...). */
  retryable?: boolean;
  /** HTTP status when `code` is `http_status`. */
  status?: number;
  /** The answer's `Retry-After`, in seconds (clamped to 1..3600), when it gave one. */
  retryAfterSeconds?: number;
  tool?: string;
  url?: string;
  /** The AdCP A2A profile rule broken, when `code` is `profile_violation`. */
  rule?: A2AProfileErrorCode;
  /**
   * The request-signing code of a 401's `WWW-Authenticate: Signature error="..."` challenge
   * (`request_signature_required`, `request_signature_key_unknown`, ...), when `code` is `http_status`.
   */
  signatureError?: string;
  /**
   * The RFC 6750 `error` of a 401's or 403's `WWW-Authenticate: Bearer error="..."` challenge
   * (`invalid_token`, ...): the agent refused the bearer token. When `code` is `http_status`.
   */
  tokenError?: string;
}

export class AdcpWireError extends Error {
  override readonly name = 'AdcpWireError';
  readonly code: WireErrorCode;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly tool: string | undefined;
  readonly url: string | undefined;
  readonly rule: A2AProfileErrorCode | undefined;
  readonly signatureError: string | undefined;
  readonly tokenError: string | undefined;

  constructor(code: WireErrorCode, message: string, options: WireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.tool = options.tool;
    this.url = options.url;
    this.rule = options.rule;
    this.signatureError = options.signatureError;
    this.tokenError = options.tokenError;
  }
}

export function isAdcpWireError(value: unknown): value is AdcpWireError {
  return value instanceof AdcpWireError;
}
