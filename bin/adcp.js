#!/usr/bin/env node
// From a source checkout (src/ present, tsx installed), runs the TypeScript sources through tsx,
// so a leftover dist/ never shadows the code being worked on; an installed package has only
// dist/ and runs that.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const built = join(root, 'dist', 'cli', 'main.js');
let entry = built;
if (existsSync(source)) {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    entry = source;
  } catch {
    // tsx is a dev dependency: without it, fall back to the build.
  }
}
if (!existsSync(entry)) {
  process.stderr.write('adcp: no build found; run `npm run build` (or `npm ci` in a checkout).\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
