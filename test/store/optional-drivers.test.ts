// better-sqlite3 and pg are optional peer dependencies: a process where neither can be resolved
// still imports every entry point and serves with the default (memory) task store; a store that
// needs a missing driver throws an error that names the package to install.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const src = (file: string) => pathToFileURL(path.join(repoRoot, 'src', file)).href;

const HIDE_DRIVERS = `
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'better-sqlite3' || request === 'pg') {
    throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  }
  return resolve.call(this, request, ...rest);
};
`;

const SCRIPT = `
const outcome = (fn) => { try { fn(); return 'ok'; } catch (e) { return { code: e.code, packageName: e.packageName, message: e.message }; } };
const store = await import(${JSON.stringify(src('store/index.ts'))});
const pgStore = await import(${JSON.stringify(src('store/pg.ts'))});
await import(${JSON.stringify(src('index.ts'))});
await import(${JSON.stringify(src('client/index.ts'))});
await import(${JSON.stringify(src('webhooks/index.ts'))});
const server = await import(${JSON.stringify(src('server/index.ts'))});
const served = server.createAdcpServer({ tools: [] });
await served.close?.();
const opened = await store.openStoresFromUrl({ url: 'postgres://nobody@127.0.0.1:1/none' }).then(() => 'ok', (e) => ({ code: e.code, packageName: e.packageName, message: e.message }));
console.log(JSON.stringify({
  memory: outcome(() => new store.MemoryDedupStore()),
  sqlite: outcome(() => new store.SqliteDedupStore({ path: ':memory:' })),
  sqliteTasks: outcome(() => new store.SqliteTaskStore({ path: ':memory:' })),
  pg: outcome(() => new pgStore.PgDedupStore({ url: 'postgres://nobody@127.0.0.1:1/none' })),
  opened,
}));
`;

describe('optional database drivers', () => {
  let dir = '';
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'adcp-optional-drivers-'));
    writeFileSync(path.join(dir, 'hide-drivers.cjs'), HIDE_DRIVERS);
    writeFileSync(path.join(dir, 'script.mjs'), SCRIPT);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('without better-sqlite3 and pg: everything imports, and a store that needs one names it', () => {
    const run = spawnSync(
      process.execPath,
      ['--require', path.join(dir, 'hide-drivers.cjs'), '--import', 'tsx', path.join(dir, 'script.mjs')],
      { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as Record<
      string,
      'ok' | { code: string; packageName: string; message: string }
    >;
    assert.equal(result['memory'], 'ok');
    for (const [key, name] of [
      ['sqlite', 'better-sqlite3'],
      ['sqliteTasks', 'better-sqlite3'],
      ['pg', 'pg'],
      ['opened', 'pg'],
    ] as const) {
      const failure = result[key];
      assert.ok(typeof failure === 'object', `${key} should fail`);
      assert.equal(failure.code, 'missing_peer_dependency', key);
      assert.equal(failure.packageName, name, key);
      assert.match(failure.message, new RegExp(`'${name}'.*not installed: npm install ${name}@\\^\\d+$`), key);
    }
  });
});
