// test-timeout-ms: 600000
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as sourceRoot from '../../src/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundler = path.join(repoRoot, 'scripts', 'bundle-root.mjs');
const bundle = (dir: string) => spawnSync(process.execPath, [bundler, dir], { encoding: 'utf8' });
const relativeImports = (text: string) => [
  ...new Set([...text.matchAll(/^import .* from ["'](\.[^"']+)["'];$/gm)].map((m) => m[1])),
];

/** A tiny dist/ directory: `files` maps a path under it to the module text. */
function fixture(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  return dir;
}

describe('scripts/bundle-root.mjs', () => {
  let tmp = '';
  before(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'adcp-bundle-root-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('bundles the built package root into one module with the same exports as the sources', async () => {
    const dist = path.join(tmp, 'dist');
    const build = spawnSync(
      path.join(repoRoot, 'node_modules', '.bin', 'tsc'),
      ['-p', 'tsconfig.build.json', '--outDir', dist],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    assert.equal(build.status, 0, build.stdout + build.stderr);
    writeFileSync(path.join(tmp, 'package.json'), '{"type":"module"}');
    const run = bundle(dist);
    assert.equal(run.status, 0, run.stderr);
    const text = readFileSync(path.join(dist, 'index.js'), 'utf8');
    assert.deepEqual(relativeImports(text), ['./core/wire-error.js']);
    assert.doesNotMatch(text, /from ["'](?!\.)/, 'no package or node: import in the root');
    const bundled = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(bundled).sort(), Object.keys(sourceRoot).sort());
    const wireError = (await import(pathToFileURL(path.join(dist, 'core', 'wire-error.js')).href)) as Record<
      string,
      unknown
    >;
    assert.equal(bundled['AdcpWireError'], wireError['AdcpWireError'], 'the class is shared with the subpaths');
    const extract = bundled['extractAdcpResponseFromMcp'] as (r: unknown) => unknown;
    assert.deepEqual(extract({ content: [{ type: 'text', text: '{"status":"completed","products":[]}' }] }), {
      status: 'completed',
      products: [],
    });
  });

  it('keeps evaluation order and renamed re-exports, and leaves a class module separate', async () => {
    const dir = fixture(tmp, 'order', {
      'index.js':
        "export { twice as double, ORDER } from './core/b.js';\nexport { one } from './core/a.js';\nexport { Oops } from './core/oops.js';\n",
      'core/a.js': "import { log } from './log.js';\nlog('a');\nexport const one = 1;\n",
      'core/b.js':
        "import { one as uno } from './a.js';\nimport { log, ORDER } from './log.js';\nlog('b');\nexport function twice() { return uno * 2; }\nexport { ORDER };\n",
      'core/log.js': 'export const ORDER = [];\nexport function log(x) { ORDER.push(x); }\n',
      'core/oops.js': 'export class Oops extends Error {}\n',
    });
    const run = bundle(dir);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(relativeImports(readFileSync(path.join(dir, 'index.js'), 'utf8')), ['./core/oops.js']);
    const m = (await import(pathToFileURL(path.join(dir, 'index.js')).href)) as {
      double: () => number;
      one: number;
      ORDER: string[];
      Oops: unknown;
    };
    const oops = (await import(pathToFileURL(path.join(dir, 'core', 'oops.js')).href)) as { Oops: unknown };
    assert.equal(m.double(), 2);
    assert.equal(m.one, 1);
    assert.deepEqual(m.ORDER, ['a', 'b']);
    assert.equal(m.Oops, oops.Oops);
  });

  it('fails and leaves index.js as tsc wrote it when the graph does not resolve', () => {
    const original = "export { a } from './missing.js';\n";
    const dir = fixture(tmp, 'broken', { 'index.js': original });
    const run = bundle(dir);
    assert.notEqual(run.status, 0);
    assert.equal(readFileSync(path.join(dir, 'index.js'), 'utf8'), original);
  });
});
