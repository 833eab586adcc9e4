import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { CLI_DOC_PATH, COMMANDS, help } from './cli-doc.js';

// conformance is left out: its help belongs to another module, which may change it on its own.
const CHECKED = [[], ...COMMANDS.filter((c) => c !== 'conformance').map((c) => c.split(' '))];

describe('docs/cli.md', () => {
  for (const argv of CHECKED) {
    it(`holds the current --help of 'adcp ${argv.join(' ')}' (regenerate: node --import tsx test/cli/cli-doc.ts)`, async () => {
      const doc = await readFile(CLI_DOC_PATH, 'utf8');
      assert.ok(doc.includes(`\`\`\`text\n${await help(argv)}\n\`\`\``));
    });
  }
});
