import { STANDARD_CODE_RECOVERY, type StandardErrorCode } from '../../core/recovery.js';
import type { JsonObject, Recovery } from '../../core/types.js';
import { loadSchemaBundle } from '../../schemas/schema-bundle.js';
import { AdcpToolError } from './tool-error.js';

export type { StandardErrorCode };

/** error-handling.md, "Seller-Specific Error Codes": `X_{VENDOR}_{CODE}`. */
const VENDOR_CODE = /^X_[A-Z][A-Z0-9]{1,19}_[A-Z][A-Z0-9_]{1,39}$/;

export interface AdcpErrorOptions {
  /** Human-readable, buyer-visible: no internal names, hosts, SQL, paths or credentials. Default: from the code. */
  message?: string;
  /** The offending request field, JSONPath-lite (`packages[0].budget`). */
  field?: string;
  suggestion?: string;
  /** Seconds before a retry makes sense; rounded up and clamped to 1..3600 (transport-errors.md). */
  retryAfter?: number;
  details?: JsonObject;
  /**
   * Only for codes outside the standard vocabulary (`X_VENDOR_CODE`): a standard code always carries
   * its registered recovery (error-handling.md: SDKs MUST NOT switch it).
   */
  recovery?: Recovery;
}

/** The registered recovery of a standard code: the library's table, else the newest release's `enumMetadata`. */
function registeredRecovery(code: string): Recovery | undefined {
  const known = STANDARD_CODE_RECOVERY.get(code);
  if (known !== undefined) return known;
  try {
    const codes = loadSchemaBundle().schema('enums/error-code.json') as {
      enumMetadata?: Record<string, { recovery?: unknown }>;
    };
    const recovery =
      codes.enumMetadata !== undefined && Object.hasOwn(codes.enumMetadata, code)
        ? codes.enumMetadata[code]?.recovery
        : undefined;
    return recovery === 'transient' || recovery === 'correctable' || recovery === 'terminal' ? recovery : undefined;
  } catch {
    return undefined; // no schemas on disk: only the library's table is known
  }
}

function defaultMessage(code: string): string {
  const words = code.toLowerCase().replaceAll('_', ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

/**
 * The error a tool handler throws to answer with an `adcp_error` (error-handling.md): the code's
 * registered recovery filled in, `retry_after` rounded up and clamped. `RATE_LIMITED` requires
 * `retryAfter` (security.md, idempotency rule 8). A code outside the standard vocabulary must be
 * `X_VENDOR_CODE` and name its `recovery`. Misuse throws `TypeError` at once.
 *
 * @example throw adcpError('PRODUCT_NOT_FOUND', { field: 'packages[0].product_id' });
 */
export function adcpError(code: StandardErrorCode | (string & {}), options: AdcpErrorOptions = {}): AdcpToolError {
  const registered = registeredRecovery(code);
  let recovery: Recovery;
  if (registered !== undefined) {
    if (options.recovery !== undefined && options.recovery !== registered) {
      throw new TypeError(`adcpError: ${code} is registered as ${registered}; its recovery cannot be changed`);
    }
    recovery = registered;
  } else {
    if (!VENDOR_CODE.test(code)) {
      throw new TypeError(`adcpError: ${code.slice(0, 80)} is not a standard code; seller codes are X_VENDOR_CODE`);
    }
    if (options.recovery === undefined) throw new TypeError(`adcpError: ${code} needs a recovery`);
    recovery = options.recovery;
  }
  let retryAfter: number | undefined;
  if (options.retryAfter !== undefined) {
    if (!Number.isFinite(options.retryAfter)) throw new TypeError('adcpError: retryAfter must be a finite number');
    retryAfter = Math.min(3600, Math.max(1, Math.ceil(options.retryAfter)));
  } else if (code === 'RATE_LIMITED') {
    throw new TypeError('adcpError: RATE_LIMITED needs retryAfter (seconds)');
  }
  return new AdcpToolError(code, options.message ?? defaultMessage(code), {
    recovery,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(options.field === undefined ? {} : { field: options.field }),
    ...(options.suggestion === undefined ? {} : { suggestion: options.suggestion }),
    ...(options.details === undefined ? {} : { details: options.details }),
  });
}
