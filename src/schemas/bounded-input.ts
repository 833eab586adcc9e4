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
 * Walks `value` and stops at the first bound passed: deeper than `maxDepth`, more than `maxNodes`
 * values (a cycle passes the depth bound), or something that is not JSON data (function, symbol,
 * bigint). Returns the issue to report, or `undefined` when the value may go to the validator.
 * Recursion is bounded by `maxDepth`; nothing is allocated per value.
 */
export function checkInputBounds(value: unknown, bounds: InputBounds = {}): ValidationIssue | undefined {
  const maxDepth = bounds.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxNodes = bounds.maxNodes ?? DEFAULT_MAX_NODES;
  let nodes = 0;
  let issue: ValidationIssue | undefined;
  const walk = (node: unknown, depth: number): boolean => {
    if (++nodes > maxNodes) {
      issue = { pointer: '', keyword: 'maxNodes', message: `has more than ${maxNodes} values` };
      return false;
    }
    const type = typeof node;
    if (type === 'function' || type === 'symbol' || type === 'bigint') {
      issue = { pointer: '', keyword: 'type', message: `holds a ${type}, which is not JSON` };
      return false;
    }
    if (node === null || type !== 'object') return true;
    if (depth >= maxDepth) {
      issue = { pointer: '', keyword: 'maxDepth', message: `nests deeper than ${maxDepth} levels` };
      return false;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) if (!walk(node[i], depth + 1)) return false;
      return true;
    }
    for (const key in node) {
      if (Object.hasOwn(node, key) && !walk((node as Record<string, unknown>)[key], depth + 1)) return false;
    }
    return true;
  };
  try {
    walk(value, 0);
  } catch {
    return { pointer: '', keyword: 'type', message: 'cannot be read as JSON data' };
  }
  return issue;
}
