import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

// scripts/check-commit-subjects.mjs (run by `npm run check`): subjects after the baseline commit
// are at most 72 characters; a shallow clone says what it could check.
const root = resolve(import.meta.dirname, '..', '..');
const script = join(root, 'scripts', 'check-commit-subjects.mjs');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' });
const check = (cwd: string) => spawnSync(process.execPath, [script], { cwd, encoding: 'utf8' });

test('a full clone: a new commit with a 73-character subject fails, 72 passes', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'adcp-subjects-'));
  try {
    const clone = join(tmp, 'full');
    git(tmp, 'clone', '-q', '--no-checkout', root, clone);
    git(clone, 'commit', '-q', '--allow-empty', '-m', `docs: ${'x'.repeat(66)}`);
    const ok = check(clone);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /in ab90194\.\.HEAD, 0 with a subject over 72/);

    git(clone, 'commit', '-q', '--allow-empty', '-m', `docs: ${'x'.repeat(67)}\n\nThe body may be long.`);
    const bad = check(clone);
    assert.equal(bad.status, 1, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /subject has 73 characters \(max 72\)/);
    assert.match(bad.stdout, /1 with a subject over 72/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a shallow clone without the baseline says it checked only the commits it holds', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'adcp-subjects-'));
  try {
    const source = join(tmp, 'source');
    git(tmp, 'clone', '-q', '--no-checkout', root, source);
    for (let i = 0; i < 3; i += 1) git(source, 'commit', '-q', '--allow-empty', '-m', `docs: step ${i}`);
    const shallow = join(tmp, 'shallow');
    git(tmp, 'clone', '-q', '--no-checkout', '--depth', '2', `file://${source}`, shallow);
    const run = check(shallow);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /shallow clone without baseline ab90194; checking only the commits it holds/);
    assert.match(run.stdout, /2 commit\(s\) in HEAD, 0 with a subject over 72/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
