import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PRECOMPILED_DIR } from './precompiled.js';
import { schemaCacheDir, schemaSearchPath } from './schema-dirs.js';

// Issue 33 item 3: the library reads no folder it was not given. In an installed package a
// folder beside it (`node_modules/shared/schemas`) could come from any dependency named `shared`.
test('the search path is ADCP_SCHEMAS_DIR, the sync cache and the built-in validators, nothing else', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'adcp-dirs-'));
  try {
    const cache = join(tmp, 'cache');
    const unset = schemaSearchPath({ ADCP_CACHE_DIR: cache });
    const builtIn = unset.filter((d) => d === PRECOMPILED_DIR);
    assert.deepEqual(unset, [schemaCacheDir({ ADCP_CACHE_DIR: cache }), ...builtIn]);
    assert.ok(!unset.some((d) => /shared[\\/]schemas/.test(d)), `no ../shared/schemas: ${unset.join(', ')}`);

    const named = join(tmp, 'mine');
    assert.deepEqual(schemaSearchPath({ ADCP_SCHEMAS_DIR: named, ADCP_CACHE_DIR: cache }), [
      named,
      schemaCacheDir({ ADCP_CACHE_DIR: cache }),
      ...builtIn,
    ]);
    // An empty value is unset, not the working directory.
    assert.deepEqual(schemaSearchPath({ ADCP_SCHEMAS_DIR: '', ADCP_CACHE_DIR: cache }), unset);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
