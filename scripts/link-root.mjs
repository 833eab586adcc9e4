#!/usr/bin/env node
// Runs after `tsc` (npm run build): rewrites DIST/index.js, the package root, as one ES module
// holding the whole module graph it reaches, each module in its own function scope. Why: Node
// pays per module and per import edge (resolve, read, link); the root's 26 small core modules
// and 70 edges cost ~10-20 ms of a cold import, one file ~1.5 ms (bench/results/core.md). The
// sources keep one concept per file; tsc cannot emit an ES module graph into one file.
//
// Modules that export a class stay separate files, imported by the root: `instanceof` must
// see the same class whether an error came through the root or through a subpath (the client,
// the webhooks) that imports the core module directly. Everything else is pure functions and
// constants, so a second copy under a subpath is harmless.
//
// Only the forms tsc emits for this code are accepted (one-line named imports and re-exports,
// `export function|const|class`); anything else fails the build instead of linking wrongly. The
// linked root is then imported and checked against tsc's: same export names, same values.
//
// Usage: node scripts/link-root.mjs [DIST]   (default: dist)
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';

const dist = path.resolve(process.argv[2] ?? 'dist');
const entry = path.join(dist, 'index.js');

/** @typedef {{ file: string, id: string, body: string[], imports: Array<{ from: string, names: Array<[string, string]> }>, exports: Array<[string, string | null, string | null]>, hasClass: boolean }} Mod */

const IMPORT_NAMED = /^import \{([^}]*)\} from '([^']+)';$/;
const EXPORT_FROM = /^export \{([^}]*)\} from '([^']+)';$/;
const EXPORT_LIST = /^export \{([^}]*)\};$/;
const EXPORT_DECL = /^export (async function\*? |function\*? |class |const )([A-Za-z_$][\w$]*)\b/;

function fail(file, message) {
  throw new Error(`link-root: ${path.relative(dist, file)}: ${message}`);
}

/** `a, b as c` -> [['a', 'a'], ['b', 'c']] (imported name, local name). */
function specifiers(list) {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const m = /^([A-Za-z_$][\w$]*)(?: as ([A-Za-z_$][\w$]*))?$/.exec(s);
      if (m === null) throw new Error(`link-root: unsupported specifier "${s}"`);
      return [m[1], m[2] ?? m[1]];
    });
}

function resolveFrom(file, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) fail(file, `non-relative import "${spec}": the root must stay dependency-free`);
  return path.resolve(path.dirname(file), spec);
}

/** @returns {Mod} */
function parse(file) {
  const mod = { file, id: '', body: [], imports: [], exports: [], hasClass: false };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let m;
    if (line.startsWith('//# sourceMappingURL=')) continue;
    if (/\bimport\s*\(|\bimport\.meta\b/.test(line)) fail(file, `unsupported module syntax: ${line.trim().slice(0, 80)}`);
    if ((m = IMPORT_NAMED.exec(line))) {
      mod.imports.push({ from: resolveFrom(file, m[2]), names: specifiers(m[1]) });
    } else if ((m = EXPORT_FROM.exec(line))) {
      const from = resolveFrom(file, m[2]);
      mod.imports.push({ from, names: [] });
      for (const [name, as] of specifiers(m[1])) mod.exports.push([as, name, from]);
    } else if ((m = EXPORT_LIST.exec(line))) {
      for (const [local, as] of specifiers(m[1])) mod.exports.push([as, local, null]);
    } else if ((m = EXPORT_DECL.exec(line))) {
      if (m[1] === 'class ') mod.hasClass = true;
      mod.exports.push([m[2], m[2], null]);
      mod.body.push(line.slice('export '.length));
    } else if (/^\s*(import|export)\b/.test(line)) {
      fail(file, `unsupported module syntax: ${line.trim().slice(0, 80)}`);
    } else {
      mod.body.push(line);
    }
  }
  return mod;
}

// Depth-first in import order: dependencies come first, as ES module evaluation runs them.
/** @type {Map<string, Mod>} */
const modules = new Map();
const order = [];
function visit(file, trail) {
  if (trail.includes(file)) fail(file, `import cycle: ${[...trail, file].map((f) => path.relative(dist, f)).join(' -> ')}`);
  if (modules.has(file)) return;
  const mod = parse(file);
  mod.id = `$${modules.size}_${path.relative(dist, file).replace(/\.js$/, '').replace(/[^\w]/g, '_')}`;
  modules.set(file, mod);
  if (!mod.hasClass || file === entry) {
    for (const imp of mod.imports) visit(imp.from, [...trail, file]);
  }
  order.push(mod);
}
visit(entry, []);
if (modules.get(entry).hasClass) fail(entry, 'the root itself declares a class');

const exportNames = (mod) => new Set(mod.exports.map(([as]) => as));
for (const mod of modules.values()) {
  if (mod.hasClass && mod.file !== entry) continue;
  for (const imp of mod.imports) {
    const names = exportNames(modules.get(imp.from));
    for (const [name] of imp.names) if (!names.has(name)) fail(mod.file, `imports "${name}", which ${path.relative(dist, imp.from)} does not export`);
  }
  for (const [as, name, from] of mod.exports) {
    if (from !== null && !exportNames(modules.get(from)).has(name)) fail(mod.file, `re-exports "${name}", which ${path.relative(dist, from)} does not export`);
  }
}

const out = [
  '// The package root, linked by scripts/link-root.mjs from the modules tsc emitted (one function',
  '// scope per module, in evaluation order); the per-module files and source maps sit beside it.',
];
for (const mod of order) {
  if (mod.file === entry || !mod.hasClass) continue;
  out.push(`import * as ${mod.id} from './${path.relative(dist, mod.file).split(path.sep).join('/')}';`);
}
for (const mod of order) {
  if (mod.hasClass && mod.file !== entry) continue;
  out.push(`// ${path.relative(dist, mod.file)}`, `const ${mod.id} = (() => {`);
  for (const imp of mod.imports) {
    if (imp.names.length === 0) continue;
    const list = imp.names.map(([name, local]) => (name === local ? name : `${name}: ${local}`)).join(', ');
    out.push(`const { ${list} } = ${modules.get(imp.from).id};`);
  }
  out.push(...mod.body);
  const members = mod.exports.map(([as, name, from]) => {
    if (from !== null) return `${as}: ${modules.get(from).id}.${name}`;
    return as === name ? as : `${as}: ${name}`;
  });
  out.push(`return { ${members.join(', ')} };`, '})();');
}
const rootNames = [...exportNames(modules.get(entry))];
out.push(`export const { ${rootNames.join(', ')} } = ${modules.get(entry).id};`, '');

// Check the linked root against tsc's before replacing it.
const linked = path.join(dist, 'index.linked.js');
writeFileSync(linked, out.join('\n'));
try {
  const before = await import(pathToFileURL(entry).href);
  const after = await import(pathToFileURL(linked).href);
  const a = Object.keys(before).sort();
  const b = Object.keys(after).sort();
  if (!isDeepStrictEqual(a, b)) throw new Error(`link-root: export names differ:\n tsc:    ${a.join(' ')}\n linked: ${b.join(' ')}`);
  for (const name of a) {
    const x = before[name];
    const y = after[name];
    const same = typeof x === 'function' ? typeof y === 'function' && x.name === y.name && x.length === y.length : isDeepStrictEqual(x, y);
    if (!same) throw new Error(`link-root: export "${name}" differs between tsc's root and the linked one`);
    if (typeof x === 'function' && /^class\b/.test(Function.prototype.toString.call(x)) && x !== y) {
      throw new Error(`link-root: class "${name}" was copied instead of shared`);
    }
  }
} catch (error) {
  rmSync(linked, { force: true });
  throw error;
}
renameSync(linked, entry);
rmSync(`${entry}.map`, { force: true });
console.log(`link-root: ${path.relative(process.cwd(), entry) || entry}: ${order.length} modules linked into one (${order.filter((m) => m.hasClass && m.file !== entry).length} kept separate for class identity)`);
