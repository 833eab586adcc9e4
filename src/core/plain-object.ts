import type { JsonObject } from './types.js';

/**
 * True for an object as `JSON.parse` makes it: not null, not an array, prototype
 * `Object.prototype` or `null`. Class instances, Maps and the like are refused.
 */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True when `value` has exactly one own key and it is `adcp_error` (an error missing its flag). */
export function isAdcpErrorOnly(value: JsonObject): boolean {
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (++count > 1 || key !== 'adcp_error') return false;
  }
  return count === 1;
}
