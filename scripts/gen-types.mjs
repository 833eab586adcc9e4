#!/usr/bin/env node
// npm run gen:types: writes src/schemas/generated/adcp-{release}.ts, TypeScript types for every
// tool's request and response of the pinned releases, made by json-schema-to-typescript from the
// official schemas (ADCP_SCHEMAS_DIR or ../shared/schemas, read here, never copied). The spec's
// prose (description, title, examples, $comment) is dropped before generation: the output holds
// names and shapes only. Named types come from schema file names (core/product.json: Product).
//
// It also writes src/core/generated/manifest-tools.ts: per shipped release (the stable ones and
// the opt-in beta), what each tool's manifest entry and request schema say about idempotency,
// the one fact the client (which calls get a key) and the server (which calls need one) read.
//
// Usage: node scripts/gen-types.mjs [--check]   (--check: exit 1 when a committed file differs)
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import prettier from 'prettier';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const schemasDir = process.env['ADCP_SCHEMAS_DIR'] || path.resolve(root, '../shared/schemas');
const outDir = path.join(root, 'src/schemas/generated');
/** Pinned releases: the wire release and the bundle version its types come from. */
const RELEASES = [
  { release: '3.0', version: '3.0.26' },
  { release: '3.1', version: '3.1.19' },
];
/** Shipped releases for the tool table: every supported and opt-in release, and its bundle. */
const TABLE_RELEASES = [...RELEASES, { release: '3.2-beta.5', version: '3.2.0-beta.5' }];
const tableFile = path.join(root, 'src/core/generated/manifest-tools.ts');
const PROSE = new Set(['description', 'title', 'examples', '$comment', 'markdownDescription', 'deprecated']);
/** Keywords TypeScript cannot express: dropped, or unions of "one of these is required" multiply. */
const UNTYPED = new Set(['if', 'then', 'else', 'not', 'dependencies', 'dependentRequired', 'dependentSchemas']);
/** A combinator branch that only adds constraints (`{ required: [...] }`) and no shape. */
const SHAPE = [
  'type',
  'properties',
  'items',
  '$ref',
  'const',
  'enum',
  'oneOf',
  'anyOf',
  'allOf',
  'additionalProperties',
];
const constraintOnly = (branch) => branch !== null && typeof branch === 'object' && !SHAPE.some((k) => k in branch);
const check = process.argv.includes('--check');

const pascal = (s) =>
  s
    .replace(/\.json$/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** Reads every schema of a release by `$id`, prose stripped, `$ref`s replaced by the shared target object. */
function loadTree(dir) {
  const files = new Map();
  const walk = (sub) => {
    for (const name of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? name.name : `${sub}/${name.name}`;
      if (name.isDirectory()) walk(rel);
      else if (rel.endsWith('.json') && !['manifest.json', 'index.json', 'manifest.schema.json'].includes(rel))
        files.set(rel, JSON.parse(readFileSync(path.join(dir, rel), 'utf8')));
    }
  };
  walk('');
  const byId = new Map();
  for (const [rel, schema] of files) byId.set(typeof schema.$id === 'string' ? schema.$id : rel, { rel, schema });
  const MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
  const strip = (node, isMap = false) => {
    if (Array.isArray(node)) return node.map((n) => strip(n));
    if (node === null || typeof node !== 'object') return node;
    for (const key of Object.keys(node)) {
      if (!isMap && (PROSE.has(key) || UNTYPED.has(key))) delete node[key];
      else node[key] = strip(node[key], !isMap && MAPS.has(key));
    }
    if (isMap) return node;
    // Closed types for objects with named fields: AdCP's `additionalProperties: true` keeps the wire
    // open to newer fields, but in TypeScript a misspelt field should be an error. A free-form
    // object (no named fields: `ext`, `payload`) keeps its index signature.
    if (node.properties !== undefined && node.additionalProperties === true) delete node.additionalProperties;
    else if (node.type === 'object' && node.properties === undefined && node.additionalProperties === undefined)
      node.additionalProperties = true;
    for (const key of ['oneOf', 'anyOf', 'allOf']) {
      if (!Array.isArray(node[key])) continue;
      node[key] = node[key].filter((branch) => !constraintOnly(branch));
      if (node[key].length === 0) delete node[key];
    }
    return node;
  };
  for (const { schema } of byId.values()) strip(schema);
  const pointer = (doc, fragment) => {
    let node = doc;
    for (const part of fragment.split('/').slice(1)) {
      node = node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (node === undefined) throw new Error(`unresolvable fragment #${fragment}`);
    return node;
  };
  const resolve = (ref, base) => {
    const [file, fragment = ''] = ref.split('#');
    const doc = file === '' ? base : byId.get(file)?.schema;
    if (doc === undefined) throw new Error(`unresolvable $ref ${ref}`);
    return fragment === '' ? doc : pointer(doc, fragment);
  };
  const deref = (node, base, seen) => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return node;
    seen.add(node);
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child !== null && typeof child === 'object' && !Array.isArray(child) && typeof child.$ref === 'string') {
        const target = resolve(child.$ref, base);
        const rest = Object.keys(child).filter((k) => k !== '$ref');
        if (rest.length === 0)
          node[key] = target; // walked in its own file's pass
        else {
          const siblings = deref(Object.fromEntries(rest.map((k) => [k, child[k]])), base, seen);
          node[key] = { ...siblings, allOf: [...(siblings.allOf ?? []), target] };
        }
      } else deref(child, base, seen);
    }
    return node;
  };
  for (const { schema } of byId.values()) deref(schema, schema, new Set());
  return { byId, files };
}

/** One file of types for a release: every tool's request and response, and the tool map. */
async function generate({ release, version }) {
  const dir = path.join(schemasDir, version);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const { files } = loadTree(dir);
  const tools = Object.entries(manifest.tools)
    .filter(([, t]) => typeof t.request_schema === 'string' && typeof t.response_schema === 'string')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const properties = {};
  for (const [name, t] of tools) {
    properties[name] = {
      type: 'object',
      properties: { request: files.get(t.request_schema), response: files.get(t.response_schema) },
      required: ['request', 'response'],
      additionalProperties: false,
    };
  }
  const mapName = `AdcpTools${release.replace('.', '')}`;
  const rootSchema = { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  const ts = await compile(rootSchema, mapName, {
    bannerComment: '',
    additionalProperties: false,
    unknownAny: true,
    ignoreMinAndMaxItems: true,
    format: false,
    strictIndexSignatures: false,
    declareExternallyReferenced: true,
    customName: (schema) => (typeof schema.$id === 'string' ? pascal(path.basename(schema.$id)) : undefined),
    $refOptions: { resolve: { file: false, http: false } },
  });
  // Object types as aliases, not interfaces: an alias is assignable to `{ [key: string]: unknown }`
  // (JsonObject), so a typed answer still goes wherever an untyped one does.
  const aliases = ts
    .replace(/^\s*\/\*\*[\s\S]*?\*\/\n/gm, '') // the generator's own notes (@minItems, "referenced by")
    .replace(/^export interface (\w+) \{\n([\s\S]*?)^\}$/gm, 'export type $1 = {\n$2};');
  const header =
    `// GENERATED by \`npm run gen:types\` from the official AdCP ${version} schemas (json-schema-to-typescript).\n` +
    `// Do not edit by hand. Shapes only: the schemas' prose is not copied.\n/* eslint-disable */\n`;
  const options = (await prettier.resolveConfig(path.join(outDir, 'x.ts'))) ?? {};
  return prettier.format(header + aliases, { ...options, parser: 'typescript' });
}

/**
 * The tool table of one release: `read` (the manifest's `mutating: false`), `keyed` (mutating,
 * and the request schema requires `idempotency_key`), `unkeyed` (mutating, no key required).
 */
function toolKinds({ version }) {
  const dir = path.join(schemasDir, version);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const kinds = {};
  for (const [name, tool] of Object.entries(manifest.tools).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ref = tool.request_schema ?? tool.request;
    const file = typeof ref === 'string' ? path.join(dir, ref.replace(/^\/schemas\/[^/]+\//, '')) : undefined;
    const required = file !== undefined && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).required : [];
    const keyed = Array.isArray(required) && required.includes('idempotency_key');
    kinds[name] = tool.mutating === false ? 'read' : keyed ? 'keyed' : 'unkeyed';
  }
  return kinds;
}

async function generateTable() {
  const table = Object.fromEntries(TABLE_RELEASES.map((r) => [r.release, toolKinds(r)]));
  const versions = Object.fromEntries(TABLE_RELEASES.map((r) => [r.release, r.version]));
  const code =
    `// GENERATED by \`npm run gen:types\` from the official AdCP schema manifests\n` +
    `// (${TABLE_RELEASES.map((r) => r.version).join(', ')}). Do not edit by hand.\n\n` +
    `/** How a tool stands to \`idempotency_key\`: a read, or mutating with or without a required key. */\n` +
    `export type ManifestToolKind = 'read' | 'keyed' | 'unkeyed';\n\n` +
    `/** The schema bundle each release's row was read from. */\n` +
    `export const MANIFEST_VERSIONS: Readonly<Record<string, string>> = ${JSON.stringify(versions)};\n\n` +
    `/** Per release, each tool of its manifest. */\n` +
    `export const MANIFEST_TOOLS: Readonly<Record<string, Readonly<Record<string, ManifestToolKind>>>> = ${JSON.stringify(table)};\n`;
  const options = (await prettier.resolveConfig(tableFile)) ?? {};
  return prettier.format(code, { ...options, parser: 'typescript' });
}

mkdirSync(outDir, { recursive: true });
mkdirSync(path.dirname(tableFile), { recursive: true });
let stale = 0;
for (const r of TABLE_RELEASES) {
  if (!existsSync(path.join(schemasDir, r.version, 'manifest.json'))) {
    process.stderr.write(`gen-types: ${r.version} not found in ${schemasDir}\n`);
    process.exit(1);
  }
}
{
  const code = await generateTable();
  if (check) {
    const same = existsSync(tableFile) && readFileSync(tableFile, 'utf8') === code;
    if (!same) stale++;
    process.stdout.write(
      `${path.relative(root, tableFile)}: ${same ? 'up to date' : 'STALE (run npm run gen:types)'}\n`,
    );
  } else {
    writeFileSync(tableFile, code);
    process.stdout.write(`${path.relative(root, tableFile)}: ${code.length} bytes\n`);
  }
}
for (const r of RELEASES) {
  if (!existsSync(path.join(schemasDir, r.version, 'manifest.json'))) {
    process.stderr.write(`gen-types: ${r.version} not found in ${schemasDir}\n`);
    process.exit(1);
  }
  const started = performance.now();
  const code = await generate(r);
  const file = path.join(outDir, `adcp-${r.release}.ts`);
  if (check) {
    const same = existsSync(file) && readFileSync(file, 'utf8') === code;
    if (!same) stale++;
    process.stdout.write(`${path.relative(root, file)}: ${same ? 'up to date' : 'STALE (run npm run gen:types)'}\n`);
  } else {
    writeFileSync(file, code);
    const ms = Math.round(performance.now() - started);
    process.stdout.write(`${path.relative(root, file)}: ${code.length} bytes in ${ms} ms\n`);
  }
}
process.exit(stale === 0 ? 0 : 1);
