import { utf8LengthExceeds } from './utf8-limit.js';

// Longest number JSON.stringify writes, e.g. "-2.2250738585072014e-308".
const MAX_NUMBER_CHARS = 24;

/**
 * True when `JSON.stringify(value)` would be more than `maxBytes` UTF-8 bytes. A walk over the
 * value bounds the size from below (each string unit is at least one byte) and from above (at most
 * six, as a `\uXXXX` escape) and stops as soon as the lower bound passes the limit; only a value
 * whose bounds straddle the limit is serialised and counted exactly. Unserialisable values count
 * as over the limit. Meant for JSON data (no getters, no `toJSON`).
 */
export function jsonSizeExceeds(value: unknown, maxBytes: number): boolean {
  low = 0;
  high = 0;
  limit = maxBytes;
  tooDeep = false;
  if (walk(value, 0)) return tooDeep ? boundsExceed(value, maxBytes) : true;
  return high > maxBytes && exactExceeds(value, maxBytes);
}

// Running bounds of the recursive walk (module state: the walk is synchronous and calls nothing).
let low = 0;
let high = 0;
let limit = 0;
let tooDeep = false;
const MAX_RECURSION = 200;

/** Adds `v` to the bounds; true once the lower bound is over the limit (or the value too deep). */
function walk(v: unknown, depth: number): boolean {
  if (typeof v === 'string') {
    low += v.length + 2;
    high += v.length * 6 + 2;
    return low > limit;
  }
  if (typeof v === 'number') {
    low += 1;
    high += MAX_NUMBER_CHARS;
    return false;
  }
  if (typeof v === 'boolean') {
    low += 4;
    high += 5;
    return false;
  }
  if (v === null) {
    low += 4;
    high += 4;
    return false;
  }
  if (typeof v !== 'object') {
    high += 4; // undefined, functions, symbols: left out, or `null` in arrays
    return typeof v === 'bigint';
  }
  if (depth > MAX_RECURSION) {
    tooDeep = true; // finish with the iterative walk instead of growing the call stack
    return true;
  }
  low += 2;
  high += 2;
  if (Array.isArray(v)) {
    const n = v.length;
    if (n > 0) low += n - 1; // commas
    high += n;
    for (let i = 0; i < n; i++) if (walk(v[i], depth + 1)) return true;
    return false;
  }
  let written = 0;
  for (const key in v) {
    const item = (v as Record<string, unknown>)[key];
    high += key.length * 6 + 4; // quotes, colon, comma
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    low += key.length + 3 + (written++ > 0 ? 1 : 0);
    if (walk(item, depth + 1)) return true;
  }
  return low > limit;
}

/** The same bounds with an explicit stack, for values nested deeper than the recursion allows. */
function boundsExceed(value: unknown, maxBytes: number): boolean {
  let low = 0;
  let high = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        low += v.length + 2;
        high += v.length * 6 + 2;
        break;
      case 'number':
        low += 1;
        high += MAX_NUMBER_CHARS;
        break;
      case 'boolean':
        low += 4;
        high += 5;
        break;
      case 'object': {
        if (v === null) {
          low += 4;
          high += 4;
          break;
        }
        low += 2;
        high += 2;
        if (Array.isArray(v)) {
          const n = v.length;
          low += n > 0 ? n - 1 : 0; // commas
          high += n;
          for (let i = 0; i < n; i++) stack.push(v[i]);
        } else {
          let written = 0;
          for (const key of Object.keys(v)) {
            const item = (v as Record<string, unknown>)[key];
            high += key.length * 6 + 4; // quotes, colon, comma
            if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
            low += key.length + 3 + (written++ > 0 ? 1 : 0);
            stack.push(item);
          }
        }
        break;
      }
      default:
        // undefined, functions, symbols are left out by JSON.stringify (or written as null in arrays);
        high += 4;
        if (typeof v === 'bigint') return true;
    }
    if (low > maxBytes) return true;
  }
  return high > maxBytes && exactExceeds(value, maxBytes);
}

function exactExceeds(value: unknown, maxBytes: number): boolean {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return true; // cycles, BigInt, too deep for the serialiser
  }
  return text === undefined ? false : utf8LengthExceeds(text, maxBytes);
}
