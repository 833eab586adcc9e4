/**
 * Seller strings on their way to a log line, a terminal or an LLM context (transport-errors.md,
 * "Buyer Agent Requirements"; a2a-response-extraction.md, "Seller-Controlled String Hygiene").
 */

export interface SanitizeOptions {
  /** Maximum length in characters (code points), ellipsis included. Default 256. */
  maxLength?: number;
}

export const DEFAULT_SANITIZE_MAX_LENGTH = 256;

// Line breaks become a space so words stay apart: CR, LF, TAB, VT, FF, NEL, LINE/PARAGRAPH SEPARATOR.
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
// C0, DEL, C1, ALM, zero-width and bidi marks, bidi overrides and isolates, invisible operators, BOM.
// oxlint-disable-next-line no-control-regex -- finding control characters is this sanitiser's job
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ELLIPSIS = '…';

/**
 * Returns `value` safe to print: line breaks turned into spaces, every control, zero-width and
 * bidi control character and lone surrogate removed, cut to `maxLength` code points with an
 * ellipsis. Returns `undefined` for anything that is not a string.
 */
export function sanitizeSellerText(value: unknown, options: SanitizeOptions = {}): string | undefined {
  if (typeof value !== 'string') return undefined;
  const maxLength = options.maxLength ?? DEFAULT_SANITIZE_MAX_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(`sanitizeSellerText: maxLength must be a positive integer, got ${String(maxLength)}`);
  }
  // Cut very long input first so the regular expressions never scan megabytes.
  const head = value.length > maxLength * 4 + 16 ? value.slice(0, maxLength * 4 + 16) : value;
  const clean = head.replace(BREAKS, ' ').replace(INVISIBLE, '').replace(LONE_SURROGATE, '');
  const truncatedInput = head.length < value.length;
  if (clean.length <= maxLength && !truncatedInput) return clean; // fewer units means fewer code points
  const points = Array.from(clean);
  if (points.length <= maxLength && !truncatedInput) return clean;
  return points.slice(0, maxLength - 1).join('') + ELLIPSIS;
}
