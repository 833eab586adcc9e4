import { utf8LengthExceeds } from './utf8-limit.js';

// Longest number JSON.stringify writes, e.g. "-2.2250738585072014e-308".
const MAX_NUMBER_CHARS = 24;

/**
 * True when `JSON.stringify(value)` would be more than `maxBytes` UTF-8 bytes. A walk over the
 * value bounds the size from below (each string unit is at least one byte) and from above (at most
 * six, as a `\uXXXX` escape) and stops as soon as the lower bound passes the limit; only a value
 * whose bounds straddle the limit is serialised and counted exactly. Unserialisable values count
 * as over the limit.
 */
export function jsonSizeExceeds(value: unknown, maxBytes: number): boolean {
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
  if (high <= maxBytes) return false;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return true;
  }
  return text === undefined ? false : utf8LengthExceeds(text, maxBytes);
}
