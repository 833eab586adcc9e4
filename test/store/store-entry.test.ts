import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Imports `file` in a fresh process as `mod`, runs `then` (code using `mod`), and lists the driver
 * packages that got loaded.
 */
function driversLoadedBy(file: string, then = ''): string[] {
  const script = [
    `const mod = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, file)).href)});`,
    then,
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

// The drivers are optional peer dependencies, loaded when the first store that needs one is made.
describe('adcp-wire/store entry points', () => {
  it('importing adcp-wire/store or adcp-wire/store/pg loads no database driver', () => {
    assert.deepEqual(driversLoadedBy('src/store/index.ts'), []);
    assert.deepEqual(driversLoadedBy('src/store/pg.ts'), []);
  });

  it('making a SQLite store loads better-sqlite3, and only that', () => {
    const then = "new mod.SqliteDedupStore({ path: ':memory:' }).close();";
    assert.deepEqual(driversLoadedBy('src/store/index.ts', then), ['better-sqlite3']);
  });
});
