import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Imports `file` in a fresh process and lists the driver packages that got loaded. */
function driversLoadedBy(file: string): string[] {
  const script = [
    `await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, file)).href)});`,
    "const { createRequire } = await import('node:module');",
    'const cache = Object.keys(createRequire(import.meta.url).cache);',
    "console.log(JSON.stringify(['pg', 'better-sqlite3'].filter((d) => cache.some((k) => k.includes(`/node_modules/${d}/`)))));",
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '[]') as string[];
}

describe('adcp-wire/store entry points', () => {
  it('adcp-wire/store does not load the PostgreSQL driver', () => {
    assert.deepEqual(driversLoadedBy('src/store/index.ts'), ['better-sqlite3']);
  });

  it('adcp-wire/store/pg loads it', () => {
    assert.ok(driversLoadedBy('src/store/pg.ts').includes('pg'));
  });
});
