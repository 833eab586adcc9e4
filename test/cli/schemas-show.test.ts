// Issue 32 item 18: `adcp schemas show` where the release has no schema files (as with the
// package's built-in validators, which are compiled code): what is known, then a message naming
// ADCP_SCHEMAS_DIR and `adcp schemas sync`, exit 1 (decision 0168). With the schema folder: fields.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { recordingIo } from './fake-io.js';

const shared = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/schemas');

describe('adcp schemas show', () => {
  let bare = '';
  before(() => {
    // A release folder holding its manifest only, no schema files.
    bare = mkdtempSync(path.join(tmpdir(), 'adcp-bare-schemas-'));
    for (const file of ['manifest.json', 'index.json']) {
      cpSync(path.join(shared, '3.1.19', file), path.join(bare, '3.1.19', file));
    }
  });
  after(() => rmSync(bare, { recursive: true, force: true }));

  it('with the schema folder prints the fields, exit 0', async () => {
    const io = recordingIo({ env: { ADCP_SCHEMAS_DIR: shared, ADCP_CACHE_DIR: bare } });
    assert.equal(await main(['schemas', 'show', 'get_products'], io), 0, io.err());
    assert.match(io.out(), /Request fields:/);
    assert.match(io.out(), /buying_mode/);
  });

  it('without schema files says how to get them and exits 1', async () => {
    const io = recordingIo({ env: { ADCP_SCHEMAS_DIR: bare, ADCP_CACHE_DIR: bare } });
    assert.equal(await main(['schemas', 'show', 'get_products'], io), 1);
    assert.match(io.out(), /^get_products \(AdCP 3\.1\.19, media-buy, read-only\)/);
    assert.match(io.err(), /set ADCP_SCHEMAS_DIR to a schema folder or run adcp schemas sync --version 3\.1\.19/);
    const json = recordingIo({ env: { ADCP_SCHEMAS_DIR: bare, ADCP_CACHE_DIR: bare } });
    assert.equal(await main(['schemas', 'show', 'get_products', '--json'], json), 1);
    const doc = JSON.parse(json.out()) as { request: unknown; missing?: string };
    assert.equal(doc.request, null);
    assert.match(doc.missing ?? '', /adcp schemas sync/);
  });
});
