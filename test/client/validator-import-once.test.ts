// AdcpClient with `validate` on imports the validator module once, not on every call: with an
// ESM loader hook registered each `import()` is a round trip to the hooks thread (~0.5 ms, twice
// per validated call: the bench's `validate: 'both'` row measured 1.9x the bare client before).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('AdcpClient validation: the validator module', () => {
  it('is asked of the module loader once across five validated calls', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'import-once', 'child.ts')], {
      cwd: path.join(here, '../..'),
      encoding: 'utf8',
      timeout: 90_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as { checks: unknown[]; resolved: number };
    assert.deepEqual(out.checks, [true, true, true, true, true], 'every answer was checked');
    assert.equal(out.resolved, 1);
  });
});
