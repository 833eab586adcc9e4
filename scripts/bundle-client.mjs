#!/usr/bin/env node
// Runs after `tsc` (npm run build), before bundle-root: bundles `adcp-wire/client`
// (dist/client/index.js) and the transports it loads on first use into a few ES modules with
// esbuild. Why: a buyer's first call is often its process's only call, and Node pays per module
// (resolve, read, link): tsc's ~100 small modules on the first A2A call cost more than the wire
// (bench/first-answer.bench.ts). The dynamic imports stay dynamic (code splitting), so an A2A
// caller still never loads the MCP SDK, and the chunks sit in dist/client/, at the depth of the
// tsc files, so paths read relative to `import.meta.url` stay right.
//
// No module ends up twice in one process where that could matter: a module that exports a class
// and is also reached from another public entry point (the root, `server`, `webhooks`, ...) stays
// a separate file, imported by the bundle (`instanceof` must see one class, whichever subpath an
// error came through). Other shared modules are pure functions, constants and caches: a second
// copy is harmless. The CLI keeps tsc's files.
//
// The bundle is imported and checked against tsc's entry before it replaces it: same export
// names, same values, shared classes identical.
//
// Usage: node scripts/bundle-client.mjs [DIST]   (default: dist)
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { assertSameExports } from './same-exports.mjs';

const dist = path.resolve(process.argv[2] ?? 'dist');
const entry = path.join(dist, 'client', 'index.js');
const staging = path.join(dist, `.client-bundle-${process.pid}`);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Every module of ours reachable (statically or through `import()`) from the other public entry points. */
async function reachedFromOthers() {
  const others = Object.values(pkg.exports)
    .map((e) => (typeof e === 'object' && e !== null ? e.import : undefined))
    .filter((f) => typeof f === 'string' && f.startsWith('./dist/') && f.endsWith('.js'))
    .map((f) => path.join(dist, f.slice('./dist/'.length)))
    .filter((f) => f !== entry);
  const missing = others.filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`bundle-client: entry points not built: ${missing.join(', ')}`);
  const result = await build({
    entryPoints: others,
    bundle: true,
    splitting: true,
    write: false,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: staging,
    metafile: true,
    logLevel: 'error',
    // An entry that uses the client imports its public entry, which becomes this bundle: what only
    // the client entry reaches is not shared, and that entry loads the one bundled copy.
    plugins: [
      {
        name: 'client-entry-external',
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) =>
            path.resolve(args.resolveDir, args.path) === entry ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
  });
  return new Set(Object.keys(result.metafile.inputs).map((f) => path.resolve(f)));
}

const CHUNK = /^chunk-[A-Z0-9]+\.js$/;
if (/^import .* from ["']\.\/chunk-/m.test(readFileSync(entry, 'utf8'))) {
  console.log(
    `bundle-client: ${path.relative(process.cwd(), entry) || entry} is bundled already (run tsc first to bundle again)`,
  );
  process.exit(0);
}
// tsc rewrote the entry: the chunks of an earlier build are stale (tsc emits no file by that name).
for (const name of readdirSync(path.join(dist, 'client'))) {
  if (CHUNK.test(name)) rmSync(path.join(dist, 'client', name));
}

const shared = await reachedFromOthers();

/** Keeps a module that exports a class and is shared with another entry point external, addressed from dist/client/. */
const keepSharedClasses = {
  name: 'keep-shared-classes',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (file === entry || !shared.has(file) || !/^export class /m.test(readFileSync(file, 'utf8'))) return undefined;
      const spec = path.relative(path.join(dist, 'client'), file).split(path.sep).join('/');
      return { path: spec.startsWith('.') ? spec : `./${spec}`, external: true };
    });
  },
};

/**
 * `transport/package-version.js` reads package.json with `createRequire` when it loads: in the
 * bundle its two fields are written in instead (the package.json the build runs from, which is
 * the one shipped beside dist/), so a buyer's first call spends nothing on the CommonJS loader
 * for them (~1.5 ms CPU of the client's import). The tsc files of the other entry points still
 * read package.json.
 */
const inlinePackageVersion = {
  name: 'inline-package-version',
  setup(b) {
    const file = path.join(dist, 'transport', 'package-version.js');
    b.onLoad({ filter: /[\\/]transport[\\/]package-version\.js$/ }, (args) => {
      if (path.resolve(args.path) !== file) return undefined;
      const fields = JSON.stringify({ name: pkg.name, version: pkg.version });
      return { contents: `export const ADCP_WIRE_PACKAGE = Object.freeze(${fields});\n`, loader: 'js' };
    });
  },
};

let outputs = [];
try {
  const result = await build({
    entryPoints: [entry],
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    packages: 'external',
    chunkNames: 'chunk-[hash]',
    legalComments: 'none',
    logLevel: 'error',
    metafile: true,
    plugins: [keepSharedClasses, inlinePackageVersion],
  });
  outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(f));
  // The chunks import each other by their own names: they move into dist/client/ together.
  for (const file of outputs) {
    if (path.basename(file) !== 'index.js' && existsSync(path.join(dist, 'client', path.basename(file)))) {
      throw new Error(`bundle-client: ${path.basename(file)} would overwrite a file of tsc's`);
    }
  }
  const before = await import(pathToFileURL(entry).href);
  // Imported from where it will live (dist/client/), as the externals are addressed from there.
  const moved = [];
  for (const file of outputs) {
    const name = path.basename(file) === 'index.js' ? 'index.bundled.js' : path.basename(file);
    renameSync(file, path.join(dist, 'client', name));
    moved.push(path.join(dist, 'client', name));
  }
  outputs = moved;
  const after = await import(pathToFileURL(path.join(dist, 'client', 'index.bundled.js')).href);
  assertSameExports('bundle-client', before, after, (name) => name === 'AdcpWireError');
} catch (error) {
  for (const file of outputs) rmSync(file, { force: true });
  rmSync(staging, { recursive: true, force: true });
  throw error;
}
rmSync(staging, { recursive: true, force: true });
renameSync(path.join(dist, 'client', 'index.bundled.js'), entry);
rmSync(`${entry}.map`, { force: true });
console.log(
  `bundle-client: ${path.relative(process.cwd(), entry) || entry}: the client and its transports in ${outputs.length} file(s)`,
);
