import type { ErrorObject } from 'ajv';
import { sanitizeSellerText } from '../core/sanitize.js';

/** One problem: where (RFC 6901 pointer into the value), which JSON Schema keyword, and why. */
export interface ValidationIssue {
  pointer: string;
  keyword: string;
  message: string;
}

/** A check's outcome, as data. `schema` names the schema used (absent when none applies). */
export type ValidationResult =
  | { ok: true; schema?: string; skipped?: 'unknown_tool' | 'no_schema' }
  | { ok: false; schema?: string; issues: ValidationIssue[] };

/** Problems reported at most per check. */
export const MAX_ISSUES = 20;

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Ajv's errors as issues: the pointer names the missing or unexpected property itself, repeated
 * (pointer, keyword) pairs are dropped, text is sanitised (hostile keys reach pointers).
 */
export function toIssues(errors: readonly ErrorObject[] | null | undefined): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    if (issues.length >= MAX_ISSUES) break;
    let pointer = error.instancePath;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params['missingProperty'] === 'string') {
      pointer += `/${escapePointer(params['missingProperty'])}`;
    } else if (error.keyword === 'additionalProperties' && typeof params['additionalProperty'] === 'string') {
      pointer += `/${escapePointer(params['additionalProperty'])}`;
    }
    const key = `${pointer}\u0000${error.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({
      pointer: sanitizeSellerText(pointer, { maxLength: 256 }) ?? '',
      keyword: error.keyword,
      message: sanitizeSellerText(error.message ?? 'is not valid', { maxLength: 256 }) ?? 'is not valid',
    });
  }
  return issues;
}

/** RFC 6901 pointer to the JSONPath-lite form of `error.field` (`/packages/0/x` -> `packages[0].x`). */
export function pointerToField(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(token)) out += `[${token}]`;
    else out += out === '' ? token : `.${token}`;
  }
  return out;
}

/** One line for an error message: `/a/b must be string; /c must have required property 'd'`. */
export function describeIssues(issues: readonly ValidationIssue[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => `${i.pointer || '/'} ${i.message}`);
  if (issues.length > max) shown.push(`and ${issues.length - max} more`);
  return shown.join('; ');
}
