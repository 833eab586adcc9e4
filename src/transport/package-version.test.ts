import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ADCP_WIRE_PACKAGE } from './package-version.js';

describe('ADCP_WIRE_PACKAGE', () => {
  it("is package.json's name and version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      name: string;
      version: string;
    };
    assert.deepEqual({ ...ADCP_WIRE_PACKAGE }, { name: pkg.name, version: pkg.version });
  });
});
