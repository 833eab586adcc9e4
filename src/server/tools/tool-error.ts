import { STANDARD_CODE_RECOVERY } from '../../core/recovery.js';
import type { AdcpError, JsonObject, Recovery } from '../../core/types.js';

/**
 * Thrown by a tool handler to answer with an `adcp_error` ("the agent said no"): the server turns
 * it into `isError: true` on MCP and a failed Task on A2A. Any other exception becomes a generic
 * error answer whose message reveals nothing of the exception.
 */
export class AdcpToolError extends Error {
  override readonly name = 'AdcpToolError';
  readonly code: string;
  readonly recovery: Recovery;
  readonly retryAfter: number | undefined;
  readonly field: string | undefined;
  readonly suggestion: string | undefined;
  readonly details: JsonObject | undefined;

  constructor(
    code: string,
    message: string,
    options: {
      recovery?: Recovery;
      retryAfter?: number;
      field?: string;
      suggestion?: string;
      details?: JsonObject;
    } = {},
  ) {
    super(message);
    this.code = code;
    this.recovery = options.recovery ?? STANDARD_CODE_RECOVERY.get(code) ?? 'correctable';
    this.retryAfter = options.retryAfter;
    this.field = options.field;
    this.suggestion = options.suggestion;
    this.details = options.details;
  }

  /** The wire `adcp_error` object (transport-errors.md, "Error shape"). */
  toAdcpError(): AdcpError {
    const error: AdcpError = { code: this.code, message: this.message, recovery: this.recovery };
    if (this.retryAfter !== undefined) error.retry_after = this.retryAfter;
    if (this.field !== undefined) error.field = this.field;
    if (this.suggestion !== undefined) error.suggestion = this.suggestion;
    if (this.details !== undefined) error.details = this.details;
    return error;
  }
}

/** The `adcp_error` to answer with for anything a handler threw. */
export function adcpErrorFromThrown(error: unknown): AdcpError {
  if (error instanceof AdcpToolError) return error.toAdcpError();
  return { code: 'SERVICE_UNAVAILABLE', message: 'The agent failed to process the request.', recovery: 'transient' };
}

/**
 * The `data` of the JSON-RPC error (-32602) answering a call to a tool the server does not serve,
 * the same on MCP (both eras) and A2A: an `adcp_error` `INVALID_REQUEST` naming the field, so a
 * buyer reads it as the agent's answer on either wire (docs/decisions/0162-unknown-tool.md).
 */
export function unknownToolData(field: 'tool' | 'skill'): { adcp_error: JsonObject } {
  const message = field === 'tool' ? 'Unknown tool.' : 'Unknown skill.';
  return { adcp_error: { code: 'INVALID_REQUEST', message, recovery: 'correctable', field } };
}
