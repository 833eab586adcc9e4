import { isJsonObject } from '../../core/json-object.js';
import { isDeepStrictEqual } from 'node:util';
import { sanitizeSellerText } from '../../core/sanitize.js';
import type { VectorResult } from './types.js';

export type JsonRecord = Record<string, unknown>;

/** The `vectors` array of a document when every entry is an object having all `fields`. */
export function vectorsWith(doc: unknown, key: string, fields: readonly string[]): JsonRecord[] | undefined {
  if (!isJsonObject(doc)) return undefined;
  const list = doc[key];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  for (const entry of list) {
    if (!isJsonObject(entry) || fields.some((f) => !(f in entry))) return undefined;
  }
  return list as JsonRecord[];
}

/** The printable id of a vector: `id`, else `name`, else its position. */
export function vectorId(vector: JsonRecord, index: number, prefix = ''): string {
  const raw =
    typeof vector['id'] === 'string'
      ? vector['id']
      : typeof vector['name'] === 'string'
        ? vector['name']
        : `#${index + 1}`;
  return prefix + raw;
}

/** Short JSON for a failure message (vector files are input too: sanitised, capped). */
export function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? typeof value);
  } catch {
    // A BigInt or a cycle: name what it is rather than print '[object Object]'.
    text = typeof value === 'bigint' ? `${value}n` : `an unserialisable ${typeof value}`;
  }
  return sanitizeSellerText(text, { maxLength: 160 }) ?? '';
}

/** A pass, or a failure saying what was expected and what came out. */
export function expectEqual(id: string, what: string, actual: unknown, expected: unknown): VectorResult {
  return isDeepStrictEqual(actual, expected)
    ? { id, ok: true }
    : { id, ok: false, reason: `${what}: expected ${show(expected)}, got ${show(actual)}` };
}

/** Runs one vector, turning an unexpected exception into a failure. */
export function guard(id: string, run: () => VectorResult): VectorResult {
  try {
    return run();
  } catch (error) {
    return {
      id,
      ok: false,
      reason: `threw ${show(error instanceof Error ? `${error.name}: ${error.message}` : error)}`,
    };
  }
}

/** The first failing result of several checks on one vector, or a pass. */
export function all(id: string, results: VectorResult[]): VectorResult {
  return results.find((r) => !r.ok) ?? { id, ok: true };
}
