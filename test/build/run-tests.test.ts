import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

// scripts/run-tests.mjs (`npm test`): one total line across its runner groups (the unit tests in
// one process, the others a process per file), failures in full, a dot per passing test.
const root = resolve(import.meta.dirname, '..', '..');

test('npm test ends with one total line across the groups, failures printed in full', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'adcp-run-tests-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir');
    mkdirSync(join(tmp, 'src'));
    mkdirSync(join(tmp, 'test'));
    const header = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n";
    writeFileSync(
      join(tmp, 'src', 'unit.test.ts'),
      `${header}test('adds', () => assert.equal(1 + 1, 2));\ntest('breaks', () => assert.equal('left side', 'right side'));\n`,
    );
    writeFileSync(
      join(tmp, 'test', 'wide.test.ts'),
      `${header}console.log('noise of a passing file');\ntest('ok', () => {});\ntest.skip('later', () => {});\n`,
    );
    writeFileSync(
      join(tmp, 'test', 'slow.test.ts'),
      `// test-timeout-ms: 600000\n${header}test('ok too', () => {});\n`,
    );
    writeFileSync(join(tmp, 'test', 'crash.test.ts'), "throw new Error('crashed at load');\n");
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'run-tests.mjs')], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = run.stdout + run.stderr;
    assert.equal(run.status, 1, out);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines.at(-1) ?? '', /^3 passed, 2 failed, 1 skipped \(4 files, \d+ s\)$/, out);
    assert.equal(out.match(/ passed, /g)?.length, 1, 'one total line');
    assert.match(out, /FAIL src\/unit\.test\.ts\n {2}breaks\n/);
    assert.match(out, /'left side'[\s\S]*'right side'/);
    assert.match(out, /FAIL test\/crash\.test\.ts/);
    assert.match(out, /crashed at load/);
    assert.doesNotMatch(out, /noise of a passing file/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
