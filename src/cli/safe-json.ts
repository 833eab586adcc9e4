/**
 * JSON text that is safe to print on a terminal: `JSON.stringify` already escapes C0 controls
 * (ESC included); this also escapes DEL, C1 controls (a lone U+009B is a CSI on some terminals),
 * bidi overrides and line/paragraph separators. The output is still valid JSON for the same value.
 */
export function safeJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, replacer, indent) ?? 'null';
  // eslint-disable-next-line no-control-regex
  return text.replace(
    /[\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** BigInts and other non-JSON values become strings instead of throwing. */
function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
