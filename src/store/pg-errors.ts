import { AdcpWireError } from '../core/wire-error.js';

/**
 * SQLSTATEs after which the same request may succeed if sent again: connection exceptions
 * (class 08), the server shutting down or starting (57P01..57P03), statement timeout (57014),
 * too many connections (53300), serialization failure and deadlock (40001, 40P01).
 */
const RETRYABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '40001', '40P01']);

/** Node socket errors and node-postgres messages that mean "the connection went away". */
const RETRYABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const RETRYABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Query read timeout',
  'connection timeout',
];

/** Whether a PostgreSQL or socket error is transient (see the sets above). */
export function isRetryablePgError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || RETRYABLE_SQLSTATES.has(code) || RETRYABLE_SOCKET_CODES.has(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && RETRYABLE_MESSAGES.some((m) => message.includes(m))) return true;
  const nested = (error as { errors?: unknown }).errors; // AggregateError from a dual-stack connect
  return Array.isArray(nested) && nested.some(isRetryablePgError);
}

/**
 * The one error a PostgreSQL store throws: `AdcpWireError` code `store`, naming what failed and
 * where (host, port, database; never the password), `retryable` when sending again may work.
 */
export function toPgStoreError(what: string, where: string, error: unknown): AdcpWireError {
  if (error instanceof AdcpWireError) return error;
  const detail = error instanceof Error ? error.message || error.name : String(error);
  const code = typeof (error as { code?: unknown })?.code === 'string' ? ` [${(error as { code: string }).code}]` : '';
  return new AdcpWireError('store', `PostgreSQL store: ${what} failed at ${where}: ${detail}${code}`, {
    cause: error,
    retryable: isRetryablePgError(error),
  });
}

/** `host:port/database` of a connection URL, for messages; the password never appears. */
export function describePgUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  } catch {
    return '(unparseable PostgreSQL URL)';
  }
}
