import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetReleaseLookups, loadSchemaBundle, SchemaBundle } from './schema-bundle.js';
import { AdcpSchemaError } from './schema-error.js';
import { findReleases } from './schema-dirs.js';
import { selectRelease } from './select-release.js';

/** A precompiled folder holding only `compiled.json` for `version`, as the build writes it. */
function precompiledDir(version: string, index: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-precompiled-'));
  mkdirSync(join(dir, version));
  writeFileSync(join(dir, version, 'compiled.json'), JSON.stringify({ version, roots: {}, ...index }));
  return dir;
}

for (const release of ['3.0', '3.1', '3.2-beta.5']) {
  describe(`SchemaBundle's tool table (AdCP ${release})`, () => {
    const location = selectRelease(release, findReleases());
    const manifest = JSON.parse(readFileSync(join(location.dir, 'manifest.json'), 'utf8')) as {
      adcp_version: string;
      generated_at: string;
      tools: Record<string, Record<string, unknown>>;
    };
    const fingerprint = `${manifest.adcp_version} ${manifest.generated_at}`;
    const parsed = new SchemaBundle(location, join(tmpdir(), 'adcp-no-such-folder'));

    it('reads every tool of the official manifest, as the manifest says', () => {
      assert.equal(parsed.fingerprint, fingerprint);
      const withSchemas = Object.entries(manifest.tools).filter(([, t]) => typeof t['request_schema'] === 'string');
      assert.deepEqual(parsed.toolNames(), withSchemas.map(([name]) => name).sort());
      for (const [name, entry] of withSchemas) {
        const tool = parsed.tool(name)!;
        assert.equal(tool.protocol, entry['protocol'], name);
        assert.equal(tool.mutating, entry['mutating'] === true, name);
        assert.equal(tool.request, entry['request_schema'], name);
        assert.equal(tool.response, entry['response_schema'], name);
        assert.deepEqual(Object.values(tool.async).sort(), [...(entry['async_response_schemas'] as string[])].sort());
      }
    });

    it("takes the build's copy of the table (manifestTools) for the same manifest, and answers the same", () => {
      const dir = precompiledDir(location.version, { fingerprint, tools: parsed.manifestTools() });
      try {
        const fast = new SchemaBundle(location, dir);
        assert.equal(fast.fingerprint, fingerprint);
        assert.deepEqual(fast.toolNames(), parsed.toolNames());
        for (const name of parsed.toolNames()) assert.deepEqual(fast.tool(name), parsed.tool(name));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("uses the build's table only when the manifest's head names the same tree", () => {
      const tools = parsed.manifestTools();
      const [dropped] = Object.keys(tools);
      delete tools[dropped!];
      const same = precompiledDir(location.version, { fingerprint, tools });
      const other = precompiledDir(location.version, { fingerprint: `${fingerprint}x`, tools });
      try {
        // A table the build marked with this manifest's fingerprint is the one read (the manifest
        // is not parsed: the dropped tool is missing)...
        assert.equal(new SchemaBundle(location, same).tool(dropped!), undefined);
        // ...and one from another tree is ignored for the manifest itself.
        assert.notEqual(new SchemaBundle(location, other).tool(dropped!), undefined);
      } finally {
        rmSync(same, { recursive: true, force: true });
        rmSync(other, { recursive: true, force: true });
      }
    });
  });
}

describe('loadSchemaBundle: the release lookup', () => {
  const official = selectRelease('3.0', findReleases());
  /** Copies the official 3.0 release's manifest and index into `dir/version`. */
  function copyRelease(dir: string, version: string): void {
    mkdirSync(join(dir, version));
    for (const file of ['manifest.json', 'index.json']) {
      writeFileSync(join(dir, version, file), readFileSync(join(official.dir, file)));
    }
  }
  /** A search folder holding one such copy. */
  function searchDir(version: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'adcp-lookup-'));
    copyRelease(dir, version);
    return dir;
  }

  it('searches the disk once per release name and search path, not per call', () => {
    const dir = searchDir('3.0.26');
    try {
      const first = loadSchemaBundle('3.0', { dirs: [dir] });
      // Servers ask on every call: a second ask must not list the folders again.
      rmSync(join(dir, '3.0.26'), { recursive: true });
      assert.equal(loadSchemaBundle('3.0', { dirs: [dir] }), first);
      // Another search path looks again, and finds nothing there now.
      assert.throws(() => loadSchemaBundle('3.0', { dirs: [dir, dir] }), AdcpSchemaError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('looks again after forgetReleaseLookups (a sync wrote a release)', () => {
    const dir = searchDir('3.0.26');
    try {
      assert.equal(loadSchemaBundle('3.0', { dirs: [dir] }).version, '3.0.26');
      copyRelease(dir, '3.0.27');
      assert.equal(loadSchemaBundle('3.0', { dirs: [dir] }).version, '3.0.26', 'still the release found first');
      forgetReleaseLookups();
      assert.equal(loadSchemaBundle('3.0', { dirs: [dir] }).version, '3.0.27');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
