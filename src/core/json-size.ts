import { utf8LengthExceeds } from './utf8-limit.js';

// Longest number JSON.stringify writes: "-0.0000012345678901234567" (sign, "0.", five zeros and
// seventeen digits) is 25 characters; the exponent forms stop at 24 ("-2.2250738585072014e-308").
const MAX_NUMBER_CHARS = 25;

/**
 * True when `JSON.stringify(value)` would be more than `maxBytes` UTF-8 bytes. A first walk adds up
 * an upper bound only (each string unit at most six bytes, as a `\uXXXX` escape) and settles the
 * usual case, a value far under the limit. Otherwise a second walk bounds the size from below too
 * (each string unit at least one byte) and stops as soon as the lower bound passes the limit; only a
 * value whose bounds straddle the limit is serialised and counted exactly. Unserialisable values
 * count as over the limit. Meant for JSON data (no getters, no `toJSON`).
 */
export function jsonSizeExceeds(value: unknown, maxBytes: number): boolean {
  if (jsonSizeUpperBound(value, maxBytes) <= maxBytes) return false;
  low = 0;
  high = 0;
  limit = maxBytes;
  tooDeep = false;
  if (walk(value, 0)) return tooDeep ? boundsExceed(value, maxBytes) : true;
  return high > maxBytes && exactExceeds(value, maxBytes);
}

/**
 * An upper bound on the UTF-8 size of `JSON.stringify(value)`; `Infinity` when the walk over an
 * object or array stops once past `cap`, meets a BigInt, or nests deeper than the recursion allows.
 * One running sum and one call per nested container: the fast path of `jsonSizeExceeds`.
 */
export function jsonSizeUpperBound(value: unknown, cap = Infinity): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'bigint':
      return Infinity;
    case 'object':
      if (value === null) return 4;
      upper = 0;
      upperCap = cap;
      return upperWalk(value, 0) ? Infinity : upper;
    case 'number':
    case 'boolean':
      return MAX_NUMBER_CHARS;
    case 'undefined':
    case 'function':
    case 'symbol':
      return 0; // JSON.stringify writes nothing for these
  }
}

// Running sum of the upper-bound walk (module state: the walk is synchronous and calls nothing).
let upper = 0;
let upperCap = 0;

/** Adds a container to `upper`; true to stop (over the cap, a BigInt, or too deep). */
function upperWalk(v: object, depth: number): boolean {
  if (depth > MAX_RECURSION) return true;
  if (Array.isArray(v)) {
    const n = v.length;
    upper += n + 2; // brackets, and at most n commas
    for (let i = 0; i < n; i++) {
      const item: unknown = v[i];
      if (typeof item === 'string') upper += item.length * 6 + 2;
      else if (typeof item === 'object' && item !== null) {
        if (upperWalk(item, depth + 1)) return true;
      } else if (typeof item === 'bigint') return true;
      else upper += MAX_NUMBER_CHARS; // numbers, booleans, null; holes and undefined as `null`
      if (upper > upperCap) return true;
    }
    return false;
  }
  upper += 2;
  for (const key in v) {
    const item = (v as Record<string, unknown>)[key];
    // Each member: its key at most six bytes a unit, two quotes, a colon, a comma.
    if (typeof item === 'string') upper += (key.length + item.length) * 6 + 6;
    else if (typeof item === 'object' && item !== null) {
      upper += key.length * 6 + 4;
      if (upperWalk(item, depth + 1)) return true;
    } else if (typeof item === 'bigint') return true;
    else upper += key.length * 6 + 4 + MAX_NUMBER_CHARS; // undefined members are left out: still a bound
    if (upper > upperCap) return true;
  }
  return false;
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
      case 'bigint':
        return true;
      case 'undefined':
      case 'function':
      case 'symbol':
        // left out by JSON.stringify (or written as null in arrays)
        high += 4;
        break;
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
