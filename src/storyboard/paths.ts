/**
 * The storyboards' field paths (storyboard-schema.yaml, "path"): dotted keys with `[n]` indexes,
 * `[*]` wildcards that flatten arrays, a trailing `.length` on arrays and strings, and `""` for
 * the whole body. Each value found comes with its RFC 6901 pointer, for the verdict's explanation.
 */

export interface Found {
  value: unknown;
  pointer: string;
}

type Token = { key: string } | { index: number } | { wildcard: true };

/** Reads `path` into tokens; `undefined` for a path this grammar does not cover. */
export function parsePath(path: string): Token[] | undefined {
  const tokens: Token[] = [];
  let rest = path.trim().replace(/^\$\.?/, '');
  while (rest !== '') {
    if (rest.startsWith('.')) rest = rest.slice(1);
    const bracket = /^\[(\*|\d+)\]/.exec(rest);
    if (bracket !== null) {
      tokens.push(bracket[1] === '*' ? { wildcard: true } : { index: Number(bracket[1]) });
      rest = rest.slice(bracket[0].length);
      continue;
    }
    const key = /^[^.[\]]+/.exec(rest);
    if (key === null) return undefined;
    tokens.push(/^\d+$/.test(key[0]) ? { index: Number(key[0]) } : { key: key[0] });
    rest = rest.slice(key[0].length);
  }
  return tokens;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every value `path` reaches in `root` (several with `[*]`, at most `cap`). */
export function resolveAll(root: unknown, path: string, cap = 10_000): Found[] {
  const tokens = parsePath(path);
  if (tokens === undefined) return [];
  let current: Found[] = [{ value: root, pointer: '' }];
  for (const token of tokens) {
    const next: Found[] = [];
    for (const { value, pointer } of current) {
      if ('wildcard' in token) {
        if (Array.isArray(value)) value.forEach((v, i) => next.push({ value: v, pointer: `${pointer}/${i}` }));
      } else if ('index' in token) {
        if (Array.isArray(value) && token.index < value.length)
          next.push({ value: value[token.index], pointer: `${pointer}/${token.index}` });
      } else if (token.key === 'length' && (Array.isArray(value) || typeof value === 'string')) {
        next.push({ value: value.length, pointer: `${pointer}/length` });
      } else if (
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.hasOwn(value, token.key)
      ) {
        next.push({ value: (value as Record<string, unknown>)[token.key], pointer: `${pointer}/${escape(token.key)}` });
      }
      if (next.length >= cap) break;
    }
    current = next;
  }
  return current;
}

/** The one value `path` reaches (the first, with wildcards), or `undefined`. */
export function resolvePath(root: unknown, path: string): Found | undefined {
  return resolveAll(root, path, 1)[0];
}

/** The pointer `path` would have, found or not (for the explanation of an absent field). */
export function pointerOf(path: string): string | null {
  const tokens = parsePath(path);
  if (tokens === undefined) return null;
  return tokens.map((t) => ('wildcard' in t ? '/*' : 'index' in t ? `/${t.index}` : `/${escape(t.key)}`)).join('');
}

/** Sets `path` (keys and indexes only) in `root`, creating objects on the way. */
export function setPath(root: Record<string, unknown>, path: string, value: unknown): boolean {
  const tokens = parsePath(path);
  if (tokens === undefined || tokens.length === 0 || tokens.some((t) => 'wildcard' in t)) return false;
  let node: unknown = root;
  for (const [i, token] of tokens.entries()) {
    const last = i === tokens.length - 1;
    const key = 'index' in token ? token.index : (token as { key: string }).key;
    const container = node as Record<string | number, unknown>;
    if (last) {
      container[key] = value;
      return true;
    }
    if (container[key] === null || typeof container[key] !== 'object') {
      const nextToken = tokens[i + 1];
      container[key] = nextToken !== undefined && 'index' in nextToken ? [] : {};
    }
    node = container[key];
  }
  return false;
}

/** JSON deep equality (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((v, i) => deepEqual(v, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b as object);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b as object, k) &&
        deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/** `expected` as a deep subset of `actual` (field_contains: objects and arrays match as subsets). */
export function deepSubset(expected: unknown, actual: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return deepEqual(expected, actual);
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && expected.every((e) => actual.some((a) => deepSubset(e, a)));
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(expected).every(
    ([k, v]) => Object.hasOwn(actual, k) && deepSubset(v, (actual as Record<string, unknown>)[k]),
  );
}
