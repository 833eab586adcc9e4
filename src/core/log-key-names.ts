/**
 * Duplicate key names on their way to a log line (security.md, webhook verifier step 14b): seller
 * bytes, so (a) a name is cut at its first non-printable code point and shown as
 * `<sanitized:N>` (N = UTF-8 bytes before it), (b) cut to 32 UTF-8 bytes at a code point boundary,
 * (c) at most four names, then `<...N more>`.
 */

const MAX_NAME_BYTES = 32;
const MAX_NAMES = 4;
// C0, DEL, C1, zero-width, bidi marks/overrides/isolates, line/paragraph separators, BOM, lone surrogates.
const NON_PRINTABLE =
  // oxlint-disable-next-line no-control-regex -- finding control characters is this sanitiser's job
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** One key name made safe for a log line by rules (a) and (b). */
export function sanitizeKeyNameForLog(name: string): string {
  const bad = NON_PRINTABLE.exec(name);
  if (bad !== null) return `<sanitized:${utf8Length(name.slice(0, bad.index))}>`;
  let bytes = 0;
  let out = '';
  for (const ch of name) {
    const size = utf8Length(ch);
    if (bytes + size > MAX_NAME_BYTES) break;
    bytes += size;
    out += ch;
  }
  return out;
}

/**
 * The list of duplicate key names for a log line: each sanitised, at most four, then
 * `<...N more>` where N counts the repeats not shown (`total` defaults to `names.length`).
 */
export function formatKeyNamesForLog(names: readonly string[], total = names.length): string[] {
  const shown = names.slice(0, MAX_NAMES).map(sanitizeKeyNameForLog);
  const more = total - shown.length;
  return more > 0 ? [...shown, `<...${more} more>`] : shown;
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return bytes;
}
