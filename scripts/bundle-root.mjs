#!/usr/bin/env node
// Runs after `tsc` (npm run build): bundles the package root, dist/index.js, into one ES module
// with esbuild. Why: Node pays per module and per import edge (resolve, read, link); the root's
// ~26 small core modules cost ~10 ms of a cold import, one file ~2 ms (bench/results/core.md).
// The sources keep one concept per file; tsc cannot emit a module graph into one file.
//
// A module that exports a class stays a separate file, imported by the bundle: `instanceof`
// must see the same class whether an error came through the root or through a subpath
// (`adcp-wire/client` imports the core modules directly). Everything else is pure functions and
// constants, so a second copy under a subpath is harmless.
//
// The bundle is imported and checked against tsc's root before it replaces it: same export
// names, same values, classes shared.
//
// Usage: node scripts/bundle-root.mjs [DIST]   (default: dist)
import { readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { assertSameExports } from './same-exports.mjs';

const dist = path.resolve(process.argv[2] ?? 'dist');
const entry = path.join(dist, 'index.js');
const bundled = path.join(dist, 'index.bundled.js');

/** Keeps relative modules that export a class external, addressed from dist/index.js. */
const keepClassModules = {
  name: 'keep-class-modules',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const file = path.resolve(args.resolveDir, args.path);
      if (file === entry || !/^export class /m.test(readFileSync(file, 'utf8'))) return undefined;
      const spec = path.relative(dist, file).split(path.sep).join('/');
      return { path: spec.startsWith('.') ? spec : `./${spec}`, external: true };
    });
  },
};

await build({
  entryPoints: [entry],
  outfile: bundled,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'error',
  plugins: [keepClassModules],
});

try {
  const before = await import(pathToFileURL(entry).href);
  const after = await import(pathToFileURL(bundled).href);
  assertSameExports('bundle-root', before, after, (_name, value) =>
    /^class\b/.test(Function.prototype.toString.call(value)),
  );
} catch (error) {
  rmSync(bundled, { force: true });
  throw error;
}
renameSync(bundled, entry);
rmSync(`${entry}.map`, { force: true });
console.log(`bundle-root: ${path.relative(process.cwd(), entry) || entry}: the root's module graph in one file`);
