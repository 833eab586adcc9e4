// The hand-kept tool table (src/core/tool-table.ts; core reads no files) held to the official
// schema manifests of the stable releases in ../shared/schemas, read at run time: a tool the
// manifest calls `mutating: false` is a read (the client sends it no idempotency_key), and a
// mutating tool whose request schema requires idempotency_key is never a read.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isReadOnlyTool } from '../../src/core/tool-table.js';

const root = fileURLToPath(new URL('../../../shared/schemas/', import.meta.url));

interface ManifestTool {
  mutating?: boolean;
  request?: string;
  request_schema?: string;
}

function tools(release: string): [string, ManifestTool][] {
  const manifest = JSON.parse(readFileSync(`${root}${release}/manifest.json`, 'utf8')) as {
    tools?: Record<string, ManifestTool>;
  };
  assert.ok(manifest.tools !== undefined && Object.keys(manifest.tools).length > 10, `${release}: no tools`);
  return Object.entries(manifest.tools);
}

function requiresKey(release: string, tool: ManifestTool): boolean {
  const ref = tool.request ?? tool.request_schema;
  if (ref === undefined) return false;
  const file = ref.replace(new RegExp(`^/schemas/${release.replace(/\./g, '\\.')}/`), '');
  const schema = JSON.parse(readFileSync(`${root}${release}/${file}`, 'utf8')) as { required?: string[] };
  return schema.required?.includes('idempotency_key') === true;
}

for (const release of ['3.0.26', '3.1.19']) {
  describe(`the tool table against the ${release} manifest`, () => {
    it('calls every manifest read a read', () => {
      const wrong = tools(release)
        .filter(([name, tool]) => tool.mutating === false && !isReadOnlyTool(name))
        .map(([name]) => name);
      assert.deepEqual(wrong, []);
    });
    it('never calls a tool that requires idempotency_key a read', () => {
      const wrong = tools(release)
        .filter(([name, tool]) => tool.mutating === true && requiresKey(release, tool) && isReadOnlyTool(name))
        .map(([name]) => name);
      assert.deepEqual(wrong, []);
    });
  });
}
