/**
 * Strict JSON for seller-controlled bytes: a size cap in UTF-8 bytes and duplicate object keys
 * rejected (security.md, "Duplicate object keys": `JSON.parse` silently keeps the last value,
 * which is a parser-differential attack). `JSON.parse` stores `__proto__` as an own data
 * property, so parsed objects never get a polluted prototype chain.
 */

import { jsonDepthExceeds } from './json-depth.js';
import { utf8LengthExceeds } from './utf8-limit.js';

export { utf8ByteLength } from './utf8-limit.js';

export type JsonParseFailure = 'too_large' | 'too_deep' | 'invalid_json' | 'duplicate_key' | 'not_a_string';

export type JsonParseResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      reason: JsonParseFailure;
      /** The first repeated key (raw, unsanitised seller text) when `reason` is `duplicate_key`. */
      key?: string;
      /** Up to four repeated keys (raw) and how many repeats there were, for a sanitised log line. */
      keys?: string[];
      repeats?: number;
      /** Parser message when `reason` is `invalid_json`. */
      detail?: string;
    };

export interface ParseJsonOptions {
  /** Refuse texts longer than this many UTF-8 bytes before parsing. No limit when absent. */
  maxBytes?: number;
  /** Refuse texts nesting objects/arrays deeper than this (`too_deep`), before parsing. No limit when absent. */
  maxDepth?: number;
}

/** True when `text` is at most `maxBytes` UTF-8 bytes; the length alone often decides. */
export function fitsUtf8Bytes(text: string, maxBytes: number): boolean {
  return !utf8LengthExceeds(text, maxBytes);
}

/**
 * Parses `text` as JSON, refusing it when it is over `maxBytes` UTF-8 bytes, nested deeper than
 * `maxDepth`, not JSON, or holds an object with the same key twice (compared after unescaping, at
 * any depth, inside arrays too).
 * Never throws.
 */
export function parseJsonStrict(text: unknown, options: ParseJsonOptions = {}): JsonParseResult {
  if (typeof text !== 'string') return { ok: false, reason: 'not_a_string' };
  if (options.maxBytes !== undefined && !fitsUtf8Bytes(text, options.maxBytes)) {
    return { ok: false, reason: 'too_large' };
  }
  if (options.maxDepth !== undefined && jsonDepthExceeds(text, options.maxDepth)) {
    return { ok: false, reason: 'too_deep' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'invalid_json', detail: error instanceof Error ? error.message : 'invalid JSON' };
  }
  // Fast path: every key token in the text is a distinct own key of some parsed object unless a key
  // repeats (JSON.parse collapses repeats). Only a mismatch pays for the scan that names the key.
  if (countKeyTokens(text) !== countOwnKeys(value)) {
    const found = findDuplicateKeys(text);
    const key = found.keys[0];
    if (key !== undefined) return { ok: false, reason: 'duplicate_key', key, keys: found.keys, repeats: found.repeats };
  }
  return { ok: true, value };
}

/**
 * Returns the first key that appears twice in one object of `text`, or `undefined`.
 * `text` must already be valid JSON: this is a single pass that only tracks nesting and keys.
 */
export function findDuplicateKey(text: string): string | undefined {
  return findDuplicateKeys(text, 1).keys[0];
}

/**
 * The repeated keys of valid JSON `text` (at most `limit` distinct names, in order of appearance)
 * and the number of repeats in all. One pass tracking nesting and the keys of each open object.
 */
export function findDuplicateKeys(text: string, limit = 4): { keys: string[]; repeats: number } {
  const found: string[] = [];
  let repeats = 0;
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
        if (seen.has(key)) {
          repeats++;
          if (found.length < limit && !found.includes(key)) found.push(key);
          if (limit === 1) return { keys: found, repeats };
        } else {
          seen.add(key);
        }
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
  return { keys: found, repeats };
}

/** Number of object keys written in valid JSON `text`: strings followed by a colon. */
function countKeyTokens(text: string): number {
  let count = 0;
  let i = text.indexOf('"');
  while (i !== -1) {
    let j = closingQuote(text, i) + 1;
    let c = text.charCodeAt(j);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++j);
    if (c === 0x3a /* : */) count++;
    i = text.indexOf('"', j);
  }
  return count;
}

/** Number of own keys of every object inside a `JSON.parse` result. */
function countOwnKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    const keys = Object.keys(v);
    count += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const item = v[keys[i] as string];
      if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return count;
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
