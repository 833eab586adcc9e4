/**
 * The A2A profile's JSON number rule (a2a-profile-extension.md, "JSON number
 * interoperability"): A2A 1.0 carries a DataPart as a protobuf `Value`, whose numbers are binary64.
 * A sender rejects an integer-valued number outside ±(2^53−1) before encoding it (never rounding
 * it), and a receiver rejects one after decoding; such values travel as strings. Within the range,
 * values compare by the decoded number, not its spelling (`3` and `3.0` are the same value).
 */

/** The largest integer binary64 represents exactly and alone: 2^53 − 1. */
export const MAX_EXACT_INTEGER = 9007199254740991;

/**
 * The RFC 6901 pointer (relative to `value`) of the first integer-valued number outside
 * ±(2^53−1) in `value`, or `undefined` when there is none. Iterative: a deep value cannot
 * overflow the stack. `1e20` and `1e308` are integer-valued; `1.5e300` is too (every binary64
 * above 2^53 is an integer), so any number of that size is refused.
 */
export function findInexactInteger(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [item, pointer] = stack.pop() as [unknown, string];
    if (typeof item === 'number') {
      if (Number.isInteger(item) && Math.abs(item) > MAX_EXACT_INTEGER) return pointer === '' ? '/' : pointer;
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${pointer}/${i}`]);
      continue;
    }
    const keys = Object.keys(item);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push([
        (item as Record<string, unknown>)[key],
        `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      ]);
    }
  }
  return undefined;
}
