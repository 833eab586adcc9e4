// test-timeout-ms: 300000
// src/schemas/generated/ is what `npm run gen:types` makes from the official schemas today, and
// holds none of the schemas' prose (descriptions, titles, examples).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const generated = path.join(repoRoot, 'src', 'schemas', 'generated');

describe('generated types', { timeout: 300_000 }, () => {
  it('match a fresh `npm run gen:types` (scripts/gen-types.mjs --check)', () => {
    const run = spawnSync(process.execPath, ['scripts/gen-types.mjs', '--check'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 280_000,
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /adcp-3\.0\.ts: up to date/);
    assert.match(run.stdout, /adcp-3\.1\.ts: up to date/);
    assert.match(run.stdout, /manifest-tools\.ts: up to date/);
  });

  it('carry no prose from the schemas: no sentence of a schema description appears', () => {
    const product = JSON.parse(
      readFileSync(path.join(repoRoot, '..', 'shared', 'schemas', '3.1.19', 'core', 'product.json'), 'utf8'),
    ) as { description: string; properties: Record<string, { description?: string }> };
    const sentences = [product.description, ...Object.values(product.properties).map((p) => p.description)]
      .filter((d): d is string => typeof d === 'string' && d.length > 30)
      .map((d) => d.slice(0, 30));
    assert.ok(sentences.length > 5);
    for (const file of readdirSync(generated)) {
      const text = readFileSync(path.join(generated, file), 'utf8');
      for (const sentence of sentences) assert.ok(!text.includes(sentence), `${file} holds "${sentence}"`);
      assert.doesNotMatch(text, /^\s*\*\s+[A-Z][a-z]+ [a-z]+ [a-z]+/m, `${file}: no prose comment`);
    }
  });
});
