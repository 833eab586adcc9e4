import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as sourceRoot from '../../src/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const linker = path.join(repoRoot, 'scripts', 'link-root.mjs');
const link = (dir: string) => spawnSync(process.execPath, [linker, dir], { encoding: 'utf8' });

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

describe('scripts/link-root.mjs', () => {
  let tmp = '';
  before(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'adcp-link-root-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('links the built package root into one module with the same exports as the sources', async () => {
    const dist = path.join(tmp, 'dist');
    const build = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', dist], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.equal(build.status, 0, build.stdout + build.stderr);
    writeFileSync(path.join(tmp, 'package.json'), '{"type":"module"}');
    const run = link(dist);
    assert.equal(run.status, 0, run.stderr);
    const text = readFileSync(path.join(dist, 'index.js'), 'utf8');
    const imports = [...text.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
    assert.deepEqual(imports, ['./core/wire-error.js']);
    const linked = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(linked).sort(), Object.keys(sourceRoot).sort());
    const wireError = (await import(pathToFileURL(path.join(dist, 'core', 'wire-error.js')).href)) as Record<string, unknown>;
    assert.equal(linked['AdcpWireError'], wireError['AdcpWireError'], 'the class is shared with the subpaths');
    const extract = linked['extractAdcpResponseFromMcp'] as (r: unknown) => unknown;
    assert.deepEqual(extract({ content: [{ type: 'text', text: '{"status":"completed","products":[]}' }] }), {
      status: 'completed',
      products: [],
    });
  });

  it('keeps import order, renames and re-exports', async () => {
    const dir = fixture(tmp, 'order', {
      'index.js': "export { twice as double, ORDER } from './core/b.js';\nexport { one } from './core/a.js';\n",
      'core/a.js': "import { log } from './log.js';\nlog('a');\nexport const one = 1;\n",
      'core/b.js': "import { one as uno } from './a.js';\nimport { log, ORDER } from './log.js';\nlog('b');\nexport function twice() { return uno * 2; }\nexport { ORDER };\n",
      'core/log.js': 'export const ORDER = [];\nexport function log(x) { ORDER.push(x); }\n',
    });
    const run = link(dir);
    assert.equal(run.status, 0, run.stderr);
    const m = (await import(pathToFileURL(path.join(dir, 'index.js')).href)) as { double: () => number; one: number; ORDER: string[] };
    assert.equal(m.double(), 2);
    assert.equal(m.one, 1);
    assert.deepEqual(m.ORDER, ['a', 'b']);
  });

  for (const [name, files, message] of [
    ['a live binding', { 'index.js': "export { n } from './a.js';\n", 'a.js': 'export let n = 1;\n' }, /unsupported module syntax/],
    ['a cycle', { 'index.js': "export { a } from './a.js';\n", 'a.js': "import { b } from './b.js';\nexport const a = 1;\n", 'b.js': "import { a } from './a.js';\nexport const b = 2;\n" }, /import cycle/],
    ['a dependency', { 'index.js': "export { a } from './a.js';\n", 'a.js': "import { z } from 'zod';\nexport const a = z;\n" }, /non-relative import/],
    ['a missing export', { 'index.js': "export { nope } from './a.js';\n", 'a.js': 'export const a = 1;\n' }, /does not export/],
    ['a dynamic import', { 'index.js': "export { a } from './a.js';\n", 'a.js': "export const a = () => import('./b.js');\n" }, /unsupported module syntax/],
  ] as const) {
    it(`refuses ${name} and leaves index.js as tsc wrote it`, () => {
      const dir = fixture(tmp, name.replace(/ /g, '-'), files);
      const run = link(dir);
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, message);
      assert.equal(readFileSync(path.join(dir, 'index.js'), 'utf8'), files['index.js']);
    });
  }
});
