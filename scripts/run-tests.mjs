#!/usr/bin/env node
// Node 20's test runner does not expand globs: find the *.test.ts files here and hand them over.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (no argument: every test)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The library reads only the schema folder it is told: the tests name the official schemas beside
// the checkout (../shared/schemas) unless the caller set ADCP_SCHEMAS_DIR.
process.env['ADCP_SCHEMAS_DIR'] ||= join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'schemas');

function find(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) find(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = find('src', find('test', []))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
// A file that needs longer than the default (a full build on a busy machine) says so in its
// first line: `// test-timeout-ms: 600000`. Such files run after the others, in their own runner.
const DEFAULT_TIMEOUT_MS = 120_000;
const timeoutOf = (file) =>
  Number(/^\/\/ test-timeout-ms: (\d+)/.exec(readFileSync(file, 'utf8').slice(0, 200))?.[1] ?? DEFAULT_TIMEOUT_MS);
const groups = new Map();
for (const file of files) {
  const timeout = timeoutOf(file);
  groups.set(timeout, [...(groups.get(timeout) ?? []), file]);
}

function run(timeout, group) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${timeout}`, ...group],
      { stdio: 'inherit' },
    );
    child.on('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

let failed = 0;
for (const timeout of [...groups.keys()].sort((a, b) => a - b)) {
  if ((await run(timeout, groups.get(timeout))) !== 0) failed = 1;
}
process.exit(failed);
