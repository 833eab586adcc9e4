// `@opentelemetry/api` is installed but nothing is registered: AdcpClient and createAdcpServer do
// not load it (its ~44 modules would weigh on a buyer's first call), and still trace once an
// application registers an SDK later in the same process.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('@opentelemetry/api loads only once something is registered', () => {
  it('is not loaded by calls made before registration, and calls after it are traced', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'lazy-api-child.ts')], {
      cwd: path.join(here, '../..'),
      encoding: 'utf8',
      timeout: 90_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as {
      before: string[];
      loadedBefore: boolean;
      after: string[];
      spans: string[];
    };
    assert.deepEqual(out.before, ['completed', 'completed']);
    assert.equal(out.loadedBefore, false);
    assert.deepEqual(out.after, ['completed', 'completed']);
    assert.ok(out.spans.filter((name) => name.includes('get_products')).length >= 2, out.spans.join(', '));
  });
});
