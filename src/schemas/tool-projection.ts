import { AdcpSchemaError } from './schema-error.js';
import type { SchemaBundle } from './schema-bundle.js';
import { stripProse } from './validator-modules.js';

type Json = Record<string, unknown>;

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const ORIGIN = 'https://adcontextprotocol.org';
/** Root keywords strict MCP hosts refuse in an `inputSchema` (schemas.md, "MCP 2026 tool-schema projection"). */
const ROOT_COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'not', 'dependencies'];
/** Keywords whose value maps names to subschemas: their keys are names, not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

/** A tool's discovery schemas: self-contained JSON Schema 2020-12 documents, only local `$ref`s. */
export interface ToolProjection {
  inputSchema: Json;
  outputSchema: Json;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The `$defs` key of an embedded schema file, named as the spec's projection names them. */
const defKey = (path: string) => `external:${path}`;

/**
 * Projects one canonical draft-07 schema of a release, with its `$ref` closure, into one
 * self-contained JSON Schema 2020-12 document (schemas.md, "MCP 2026 tool-schema projection"):
 * every other file goes under `$defs` (`external:{path}`), references become local pointers,
 * `definitions` become `$defs`, tuple `items` become `prefixItems`, `$id`s go, prose goes (the
 * root keeps its description). With `input: true` the root is flattened for strict hosts: the
 * properties and `required` of unconditional `allOf` members move into the root, and root
 * `allOf`/`anyOf`/`oneOf`/conditionals/negations are dropped (nested ones stay). Canonical
 * call-time validation stays authoritative.
 */
export function projectSchema(bundle: SchemaBundle, path: string, options: { input?: boolean } = {}): Json {
  const deps: string[] = [];
  const root = convert(bundle, bundle.schema(path), path, true, deps) as Json;
  const defs: Json = {};
  const pending = [...deps];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (defKey(file) in defs) continue;
    const converted = convertedFile(bundle, file);
    defs[defKey(file)] = converted.schema;
    pending.push(...converted.deps);
  }
  const own = root['$defs'] as Json | undefined;
  delete root['$defs'];
  if (own !== undefined) Object.assign(defs, own);
  const description = (bundle.schema(path) as Json)['description'];

  if (options.input === true) flattenRoot(root, defs);
  const out: Json = { $schema: DIALECT, ...root };
  if (typeof description === 'string') out['description'] = description;
  const used = reachable(out, defs);
  if (used.size > 0) out['$defs'] = Object.fromEntries([...used].sort().map((k) => [k, defs[k]]));
  return out;
}

/** A converted file, shared by every projection of its release (never mutated once made). */
const converted = new WeakMap<SchemaBundle, Map<string, { schema: Json; deps: string[] }>>();

function convertedFile(bundle: SchemaBundle, file: string): { schema: Json; deps: string[] } {
  let files = converted.get(bundle);
  if (files === undefined) converted.set(bundle, (files = new Map()));
  let found = files.get(file);
  if (found === undefined) {
    const deps: string[] = [];
    found = { schema: convert(bundle, bundle.schema(file), file, false, deps) as Json, deps };
    files.set(file, found);
  }
  return found;
}

/** Converts one file; `isRoot`: its own `#` references stay local to the document's root. */
function convert(bundle: SchemaBundle, node: unknown, file: string, isRoot: boolean, deps: string[]): unknown {
  const walk = (value: unknown, keyword: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, true));
    if (value === null || typeof value !== 'object') return value;
    if (!keyword) return value;
    const out: Json = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === '$id' || key === '$schema') continue;
      if (key === '$ref' && typeof v === 'string') out['$ref'] = localRef(bundle, v, file, isRoot, deps);
      else if (key === 'enum' || key === 'const' || key === 'default' || key === 'required') out[key] = v;
      else if (NAME_MAPS.has(key) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const map: Json = {};
        for (const [name, sub] of Object.entries(v)) map[name] = walk(sub, true);
        out[key === 'definitions' ? '$defs' : key] = map;
      } else if (key === 'items' && Array.isArray(v)) out['prefixItems'] = walk(v, true);
      else if (key === 'additionalItems' && Array.isArray((value as Json)['items'])) out['items'] = walk(v, true);
      else out[key] = walk(v, typeof v === 'object');
    }
    return out;
  };
  return walk(stripProse(node), true);
}

function localRef(bundle: SchemaBundle, ref: string, file: string, isRoot: boolean, deps: string[]): string {
  const hash = ref.indexOf('#');
  const target = hash === 0 ? file : resolveFile(bundle, hash === -1 ? ref : ref.slice(0, hash), file);
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  const pointer = fragment
    .split('/')
    .map((t) => (t === 'definitions' ? '$defs' : t))
    .join('/');
  if (isRoot && target === file) return `#${pointer}`;
  if (target !== file) deps.push(target);
  return `#/$defs/${escapeToken(defKey(target))}${pointer}`;
}

function resolveFile(bundle: SchemaBundle, ref: string, from: string): string {
  let url: URL;
  try {
    url = new URL(ref, ORIGIN + bundle.idOf(from));
  } catch {
    url = new URL('invalid:');
  }
  const path = url.origin === ORIGIN ? bundle.pathOf(url.pathname) : undefined;
  if (path === undefined) {
    throw new AdcpSchemaError(
      'unresolvable_ref',
      `Schema ${from} of AdCP ${bundle.version} refers to ${JSON.stringify(ref).slice(0, 160)}, outside the release`,
    );
  }
  return path;
}

/** Moves unconditional `allOf` object members into the root and drops root combinators. */
function flattenRoot(root: Json, defs: Json): void {
  const properties: Json = { ...(root['properties'] as Json | undefined) };
  const required = new Set<string>(Array.isArray(root['required']) ? (root['required'] as string[]) : []);
  for (const member of Array.isArray(root['allOf']) ? (root['allOf'] as Json[]) : []) {
    const target = deref(member, defs);
    if (target === undefined || ROOT_COMBINATORS.some((k) => k !== 'allOf' && k in target)) continue;
    for (const [name, schema] of Object.entries((target['properties'] as Json | undefined) ?? {})) {
      if (!(name in properties)) properties[name] = schema;
    }
    for (const name of Array.isArray(target['required']) ? (target['required'] as string[]) : []) required.add(name);
  }
  for (const key of ROOT_COMBINATORS) delete root[key];
  root['type'] = 'object';
  root['properties'] = properties;
  if (required.size > 0) root['required'] = [...required];
}

function deref(member: Json, defs: Json): Json | undefined {
  const ref = member['$ref'];
  if (typeof ref !== 'string') return member;
  const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
  const key = m?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
  return key === undefined ? undefined : (defs[key] as Json | undefined);
}

/** The `$defs` entries reachable from the root's references (a dropped combinator's refs go). */
function reachable(root: Json, defs: Json): Set<string> {
  const used = new Set<string>();
  const scan = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(scan);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const m = /^#\/\$defs\/([^/]+)/.exec(value);
        const name = m?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
        if (name !== undefined && !used.has(name) && name in defs) {
          used.add(name);
          scan(defs[name]);
        }
      } else scan(value);
    }
  };
  scan(root);
  return used;
}
