import { AdcpWireError } from '../core/wire-error.js';
import { abortReason } from '../transport/abort-reason.js';
import { tlsMismatchNote } from '../transport/tls-mismatch.js';

/** Socket errors that mean the request never reached the server: resending is safe. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Maps what `fetch` threw to the library's error, keeping the original as `cause`. */
export function toFetchError(error: unknown, signal: AbortSignal, url: string): Error {
  if (signal.aborted) return abortReason(signal.reason);
  if (error instanceof AdcpWireError) return error;
  const code = socketCode(error);
  const retryable = code !== undefined && NOT_SENT_CODES.has(code);
  const note = tlsMismatchNote(error, url);
  return new AdcpWireError('network', `could not reach the MCP server at ${url}${code ? ` (${code})` : ''}${note}`, {
    cause: error,
    retryable,
    url,
  });
}

function socketCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) current = errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
