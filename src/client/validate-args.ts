import type { JsonObject } from '../core/types.js';

/** Deepest nesting checked; a schema deeper than this is not followed further. */
const MAX_DEPTH = 32;
/** Problems reported at most. */
const MAX_ISSUES = 20;

/**
 * Checks `value` against a JSON Schema subset and returns the problems found (empty when none):
 * `type` (one or a list), `enum`, `const`, `required`, `properties`, `additionalProperties`
 * (`false` or a schema), `items`, `minItems`/`maxItems`, `minLength`/`maxLength`,
 * `minimum`/`maximum`, `anyOf`/`oneOf` (passes when any branch passes). Other keywords
 * (`$ref`, `format`, `pattern`, ...) are ignored, so this only ever rejects what the tool's schema
 * plainly forbids. Paths are JSON-pointer-like (`/budget/total`).
 */
export function validateArgs(schema: unknown, value: unknown): string[] {
  const issues: string[] = [];
  check(schema, value, '', 0, issues);
  return issues.slice(0, MAX_ISSUES);
}

function check(schema: unknown, value: unknown, path: string, depth: number, issues: string[]): void {
  if (depth > MAX_DEPTH || issues.length >= MAX_ISSUES) return;
  if (schema === false) {
    issues.push(`${path || '/'}: not allowed`);
    return;
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as JsonObject;
  const at = path || '/';
  const type = s['type'];
  if (type !== undefined && !matchesType(type, value)) {
    issues.push(
      `${at}: expected ${Array.isArray(type) ? type.join(' or ') : typeof type === 'string' ? type : JSON.stringify(type)}, got ${typeName(value)}`,
    );
    return;
  }
  if (Array.isArray(s['enum']) && !s['enum'].some((option) => sameJson(option, value)))
    issues.push(`${at}: not one of the allowed values`);
  if ('const' in s && !sameJson(s['const'], value)) issues.push(`${at}: must equal ${JSON.stringify(s['const'])}`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (
      Array.isArray(branches) &&
      branches.length > 0 &&
      !branches.some((b) => validateBranch(b, value, path, depth))
    ) {
      issues.push(`${at}: matches none of the ${key} schemas`);
    }
  }
  if (typeof value === 'string') checkString(s, value, at, issues);
  else if (typeof value === 'number') checkNumber(s, value, at, issues);
  else if (Array.isArray(value)) checkArray(s, value, path, depth, issues);
  else if (value !== null && typeof value === 'object') checkObject(s, value as JsonObject, path, depth, issues);
}

function validateBranch(schema: unknown, value: unknown, path: string, depth: number): boolean {
  const found: string[] = [];
  check(schema, value, path, depth + 1, found);
  return found.length === 0;
}

function checkString(s: JsonObject, value: string, at: string, issues: string[]): void {
  const length = codePointCount(value); // JSON Schema lengths count code points, not UTF-16 units
  if (typeof s['minLength'] === 'number' && length < s['minLength'])
    issues.push(`${at}: shorter than ${s['minLength']}`);
  if (typeof s['maxLength'] === 'number' && length > s['maxLength'])
    issues.push(`${at}: longer than ${s['maxLength']}`);
}

function checkNumber(s: JsonObject, value: number, at: string, issues: string[]): void {
  if (typeof s['minimum'] === 'number' && value < s['minimum']) issues.push(`${at}: below ${s['minimum']}`);
  if (typeof s['maximum'] === 'number' && value > s['maximum']) issues.push(`${at}: above ${s['maximum']}`);
}

function checkArray(s: JsonObject, value: unknown[], path: string, depth: number, issues: string[]): void {
  const at = path || '/';
  if (typeof s['minItems'] === 'number' && value.length < s['minItems'])
    issues.push(`${at}: fewer than ${s['minItems']} items`);
  if (typeof s['maxItems'] === 'number' && value.length > s['maxItems'])
    issues.push(`${at}: more than ${s['maxItems']} items`);
  const items = s['items'];
  if (items !== undefined && !Array.isArray(items))
    value.forEach((item, i) => check(items, item, `${path}/${i}`, depth + 1, issues));
}

function checkObject(s: JsonObject, value: JsonObject, path: string, depth: number, issues: string[]): void {
  const properties =
    s['properties'] !== null && typeof s['properties'] === 'object' ? (s['properties'] as JsonObject) : {};
  if (Array.isArray(s['required'])) {
    for (const name of s['required']) {
      if (typeof name === 'string' && !Object.hasOwn(value, name)) issues.push(`${path}/${name}: required`);
    }
  }
  for (const [name, child] of Object.entries(value)) {
    if (Object.hasOwn(properties, name)) check(properties[name], child, `${path}/${name}`, depth + 1, issues);
    else if (s['additionalProperties'] === false) issues.push(`${path}/${name}: not an allowed property`);
    else if (typeof s['additionalProperties'] === 'object')
      check(s['additionalProperties'], child, `${path}/${name}`, depth + 1, issues);
  }
}

function matchesType(type: unknown, value: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => matchesType(t, value));
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return true; // unknown type keyword: not ours to refuse
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function codePointCount(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
