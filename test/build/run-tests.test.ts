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
    // A file that hangs with a server open: stopped at its timeout, it has said what it waited on.
    writeFileSync(
      join(tmp, 'test', 'hang.test.ts'),
      `// test-timeout-ms: 8000\n${header}import { createServer } from 'node:http';\n` +
        "test('waits forever', async () => {\n  const server = createServer();\n" +
        "  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));\n" +
        '  await new Promise(() => setInterval(() => undefined, 1000));\n});\n',
    );
    // A file whose main thread never yields runs no timer: the watchdog's worker writes its stack.
    writeFileSync(
      join(tmp, 'test', 'spin.test.ts'),
      `// test-timeout-ms: 8000\n${header}function spinsForever(): void {\n  for (;;) {}\n}\n` +
        "test('spins forever', () => spinsForever());\n",
    );
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'run-tests.mjs')], {
      cwd: tmp,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = run.stdout + run.stderr;
    assert.equal(run.status, 1, out);
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines.at(-1) ?? '', /^3 passed, 4 failed, 1 skipped \(6 files, \d+ s\)$/, out);
    assert.equal(out.match(/ passed, /g)?.length, 1, 'one total line');
    assert.match(out, /FAIL src\/unit\.test\.ts\n {2}breaks\n/);
    assert.match(out, /'left side'[\s\S]*'right side'/);
    assert.match(out, /FAIL test\/crash\.test\.ts/);
    assert.match(out, /crashed at load/);
    assert.doesNotMatch(out, /noise of a passing file/);
    assert.match(out, /FAIL test\/hang\.test\.ts\n {2}\(the file itself: it crashed or timed out\)/);
    assert.match(
      out,
      /--- last output of test\/hang\.test\.ts ---\ntest-watchdog: still running after \d+ s \(timeout 8 s\)/,
    );
    assert.match(out, /TCPServerWrap x1, Timeout x1\n {2}Server \{"address":"127\.0\.0\.1"/);
    assert.match(
      out,
      /--- last output of test\/spin\.test\.ts ---\ntest-watchdog: the main thread is blocked .*; its stack:\n {2}at spinsForever \(file:\/\/.*test\/spin\.test\.ts:\d+:\d+\)/,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
