// The tool table the client and the server read (src/core/tool-table.ts over the generated
// src/core/generated/manifest-tools.ts) held to the official schema manifests of every release
// this library ships, read at run time from ../shared/schemas: each tool's `mutating` and whether
// its request schema requires idempotency_key. (`npm run gen:types` writes the table; the
// generated-types test checks it is fresh, this one checks what it says.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MANIFEST_TOOLS, MANIFEST_VERSIONS } from '../../src/core/generated/manifest-tools.js';
import { ADCP_TOOLS, isReadOnlyTool, requiresIdempotencyKey } from '../../src/core/tool-table.js';
import { OPT_IN_RELEASES, SUPPORTED_RELEASES } from '../../src/schemas/supported-releases.js';
import { toWireVersion } from '../../src/schemas/release.js';

const root = fileURLToPath(new URL('../../../shared/schemas/', import.meta.url));
const shipped = [...SUPPORTED_RELEASES, ...OPT_IN_RELEASES];

interface ManifestTool {
  mutating?: boolean;
  request?: string;
  request_schema?: string;
}

/** What the manifest of `version` and its request schemas say, tool by tool. */
function manifestSays(version: string): Record<string, { mutating: boolean; keyRequired: boolean }> {
  const manifest = JSON.parse(readFileSync(`${root}${version}/manifest.json`, 'utf8')) as {
    tools: Record<string, ManifestTool>;
  };
  const out: Record<string, { mutating: boolean; keyRequired: boolean }> = {};
  for (const [name, tool] of Object.entries(manifest.tools)) {
    const ref = tool.request_schema ?? tool.request;
    let keyRequired = false;
    if (ref !== undefined) {
      const file = ref.replace(/^\/schemas\/[^/]+\//, '');
      const schema = JSON.parse(readFileSync(`${root}${version}/${file}`, 'utf8')) as { required?: string[] };
      keyRequired = schema.required?.includes('idempotency_key') === true;
    }
    out[name] = { mutating: tool.mutating !== false, keyRequired };
  }
  return out;
}

describe('the generated tool table', () => {
  it('has a row for every release this library ships, read from that release', () => {
    assert.deepEqual(Object.keys(MANIFEST_TOOLS).sort(), [...shipped].sort());
    for (const release of shipped) assert.equal(toWireVersion(MANIFEST_VERSIONS[release] ?? ''), release);
  });

  for (const release of shipped) {
    it(`equals the ${release} manifest, tool by tool`, () => {
      const says = manifestSays(MANIFEST_VERSIONS[release] as string);
      assert.ok(Object.keys(says).length > 50, `${release}: ${Object.keys(says).length} tools`);
      const table = MANIFEST_TOOLS[release] ?? {};
      assert.deepEqual(Object.keys(table).sort(), Object.keys(says).sort());
      for (const [name, fact] of Object.entries(says)) {
        assert.equal(isReadOnlyTool(name, release), !fact.mutating, `${release} ${name}: read-only`);
        assert.equal(
          requiresIdempotencyKey(name, [release]),
          fact.mutating && fact.keyRequired,
          `${release} ${name}: key`,
        );
      }
    });
  }

  it('calls a tool a read without a release only when every stable manifest naming it does', () => {
    for (const [name, facts] of Object.entries(ADCP_TOOLS)) {
      const stable = SUPPORTED_RELEASES.map((r) => manifestSays(MANIFEST_VERSIONS[r] as string)[name]).filter(
        (f) => f !== undefined,
      );
      if (stable.length === 0) continue;
      assert.equal(
        facts.readOnly,
        stable.every((f) => !f.mutating),
        name,
      );
      assert.equal(isReadOnlyTool(name), facts.readOnly, name);
    }
  });
});
