// Used by bundle-root.mjs and bundle-client.mjs: a bundle must export what tsc's entry exports.
import { isDeepStrictEqual } from 'node:util';

/**
 * Throws unless `after` (the bundle's exports) has the same names as `before` (tsc's entry) and
 * the same value under each: functions by name and arity, other values deeply equal. Classes
 * for which `mustShare(name, value)` holds must be the very same object (one class, so
 * `instanceof` works whichever entry point a value came through).
 */
export function assertSameExports(label, before, after, mustShare) {
  const a = Object.keys(before).sort();
  const b = Object.keys(after).sort();
  if (!isDeepStrictEqual(a, b))
    throw new Error(`${label}: export names differ:\n tsc:     ${a.join(' ')}\n bundled: ${b.join(' ')}`);
  for (const name of a) {
    const x = before[name];
    const y = after[name];
    const same =
      typeof x === 'function'
        ? typeof y === 'function' && x.name === y.name && x.length === y.length
        : isDeepStrictEqual(x, y);
    if (!same) throw new Error(`${label}: export "${name}" differs between tsc's entry and the bundle`);
    if (typeof x === 'function' && mustShare(name, x) && x !== y) {
      throw new Error(`${label}: class "${name}" was copied instead of shared`);
    }
  }
}
