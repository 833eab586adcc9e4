// docs/client.md lists every AdcpWireError code the client throws (issue 32 item 9): each code of
// WIRE_ERROR_CODES has its row in the table, and each code the sources throw is one of them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WIRE_ERROR_CODES } from '../../src/core/wire-error.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('docs/client.md and the AdcpWireError codes', () => {
  const doc = readFileSync(path.join(root, 'docs/client.md'), 'utf8');

  it('has a table row for every code', () => {
    const rows = new Set([...doc.matchAll(/^\s*\| `([a-z_]+)` +\|/gm)].map((m) => m[1]));
    assert.deepEqual(
      WIRE_ERROR_CODES.filter((code) => !rows.has(code)),
      [],
    );
  });

  it('every code thrown in src is a listed one', () => {
    const thrown = new Set<string>();
    for (const file of sources(path.join(root, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/new AdcpWireError\(\s*'([a-z_]+)'/g)) thrown.add(m[1]!);
    }
    assert.ok(thrown.size > 5, 'found the throws');
    assert.deepEqual(
      [...thrown].filter((code) => !(WIRE_ERROR_CODES as readonly string[]).includes(code)),
      [],
    );
  });
});
