/**
 * Strict JSON for seller-controlled bytes: a size cap in UTF-8 bytes and duplicate object keys
 * rejected (security.md, "Duplicate object keys": `JSON.parse` silently keeps the last value,
 * which is a parser-differential attack). `JSON.parse` stores `__proto__` as an own data
 * property, so parsed objects never get a polluted prototype chain.
 */

import { utf8LengthExceeds } from './utf8-limit.js';

export { utf8ByteLength } from './utf8-limit.js';

export type JsonParseFailure = 'too_large' | 'invalid_json' | 'duplicate_key' | 'not_a_string';

export type JsonParseResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      reason: JsonParseFailure;
      /** The first repeated key (raw, unsanitised seller text) when `reason` is `duplicate_key`. */
      key?: string;
      /** Parser message when `reason` is `invalid_json`. */
      detail?: string;
    };

export interface ParseJsonOptions {
  /** Refuse texts longer than this many UTF-8 bytes before parsing. No limit when absent. */
  maxBytes?: number;
}

/** True when `text` is at most `maxBytes` UTF-8 bytes; the length alone often decides. */
export function fitsUtf8Bytes(text: string, maxBytes: number): boolean {
  return !utf8LengthExceeds(text, maxBytes);
}

/**
 * Parses `text` as JSON, refusing it when it is over `maxBytes` UTF-8 bytes, not JSON, or holds an
 * object with the same key twice (compared after unescaping, at any depth, inside arrays too).
 * Never throws.
 */
export function parseJsonStrict(text: unknown, options: ParseJsonOptions = {}): JsonParseResult {
  if (typeof text !== 'string') return { ok: false, reason: 'not_a_string' };
  if (options.maxBytes !== undefined && !fitsUtf8Bytes(text, options.maxBytes)) {
    return { ok: false, reason: 'too_large' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'invalid_json', detail: error instanceof Error ? error.message : 'invalid JSON' };
  }
  const key = findDuplicateKey(text);
  if (key !== undefined) return { ok: false, reason: 'duplicate_key', key };
  return { ok: true, value };
}

/**
 * Returns the first key that appears twice in one object of `text`, or `undefined`.
 * `text` must already be valid JSON: this is a single pass that only tracks nesting and keys.
 */
export function findDuplicateKey(text: string): string | undefined {
  // Per open container: is it an object, is the next string a key, keys seen so far.
  const isObject: boolean[] = [];
  const expectKey: boolean[] = [];
  const keys: (Set<string> | undefined)[] = [];
  let depth = -1;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      if (depth >= 0 && isObject[depth] === true && expectKey[depth] === true) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        let seen = keys[depth];
        if (seen === undefined) {
          seen = new Set();
          keys[depth] = seen;
        }
        if (seen.has(key)) return key;
        seen.add(key);
        expectKey[depth] = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      depth++;
      isObject[depth] = c === 0x7b;
      expectKey[depth] = c === 0x7b;
      keys[depth] = undefined;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      keys[depth] = undefined;
      depth--;
    } else if (c === 0x2c /* , */ && depth >= 0 && isObject[depth] === true) {
      expectKey[depth] = true;
    }
    i++;
  }
  return undefined;
}

/** Index of the quote closing the string that opens at `start` (escapes skipped). */
function closingQuote(text: string, start: number): number {
  let j = text.indexOf('"', start + 1);
  while (j !== -1) {
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
  return text.length; // unreachable on valid JSON
}
