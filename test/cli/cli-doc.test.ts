import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { CLI_DOC_PATH, renderCliDoc } from './cli-doc.js';

describe('docs/cli.md', () => {
  it('is exactly the commands\' --help texts (regenerate: node --import tsx test/cli/cli-doc.ts)', async () => {
    assert.equal(await readFile(CLI_DOC_PATH, 'utf8'), await renderCliDoc());
  });
});
