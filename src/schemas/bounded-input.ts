import type { ValidationIssue } from './validation-result.js';

/** Deepest nesting checked (the official trees nest far less). */
export const DEFAULT_MAX_DEPTH = 64;
/** Most values (objects, arrays, scalars) checked in one document. */
export const DEFAULT_MAX_NODES = 200_000;

export interface InputBounds {
  maxDepth?: number;
  maxNodes?: number;
}

/**
 * Walks `value` without recursion and stops at the first bound passed: deeper than `maxDepth`,
 * more than `maxNodes` values (a cycle passes the depth bound), or something that is not JSON data
 * (function, symbol, bigint). Returns the issue to report, or `undefined` when the value may go to the validator.
 */
export function checkInputBounds(value: unknown, bounds: InputBounds = {}): ValidationIssue | undefined {
  const maxDepth = bounds.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxNodes = bounds.maxNodes ?? DEFAULT_MAX_NODES;
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  try {
    while (stack.length > 0) {
      const [node, depth] = stack.pop()!;
      if (++nodes > maxNodes) {
        return { pointer: '', keyword: 'maxNodes', message: `has more than ${maxNodes} values` };
      }
      const type = typeof node;
      if (type === 'function' || type === 'symbol' || type === 'bigint') {
        return { pointer: '', keyword: 'type', message: `holds a ${type}, which is not JSON` };
      }
      if (node === null || type !== 'object') continue;
      if (depth >= maxDepth)
        return { pointer: '', keyword: 'maxDepth', message: `nests deeper than ${maxDepth} levels` };
      const children = Array.isArray(node) ? node : Object.values(node as object);
      for (const child of children) stack.push([child, depth + 1]);
    }
  } catch {
    return { pointer: '', keyword: 'type', message: 'cannot be read as JSON data' };
  }
  return undefined;
}
