/**
 * The JSON nesting depth every request is held to before it is parsed (security.md, "a maximum
 * JSON nesting depth of 64"): deeper texts overflow recursive code downstream (schema validators,
 * the SDKs' message parsers) and no AdCP payload needs them.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * True when `text` opens more than `maxDepth` objects/arrays inside one another. One pass over the
 * text that skips string contents (brackets inside strings do not count); it never recurses, so
 * any depth is measured safely. Works on any text, valid JSON or not.
 */
export function jsonDepthExceeds(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip to the closing quote; a backslash escapes the next unit.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}
