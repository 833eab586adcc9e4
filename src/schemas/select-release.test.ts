import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpSchemaError } from './schema-error.js';
import { findReleases } from './schema-dirs.js';
import { selectRelease } from './select-release.js';

const releases = [
  { version: '3.0.26', dir: '/x/3.0.26' },
  { version: '3.0.3', dir: '/x/3.0.3' },
  { version: '3.1.19', dir: '/x/3.1.19' },
  { version: '3.2.0-beta.5', dir: '/x/3.2.0-beta.5' },
  { version: '4.0.0', dir: '/x/4.0.0' },
];

function refusal(code: string) {
  return (error: unknown) => error instanceof AdcpSchemaError && error.code === code;
}

describe('selectRelease', () => {
  it('selects an exact version', () => {
    assert.equal(selectRelease('3.0.3', releases).version, '3.0.3');
  });
  it('selects the newest patch of a release', () => {
    assert.equal(selectRelease('3.0', releases).version, '3.0.26');
    assert.equal(selectRelease('3.1', releases).version, '3.1.19');
  });
  it('selects the newest stable supported release of a major, never a pre-release', () => {
    assert.equal(selectRelease('3', releases).version, '3.1.19');
  });
  it('selects the 3.2 beta only when named', () => {
    assert.equal(selectRelease('3.2.0-beta.5', releases).version, '3.2.0-beta.5');
    assert.equal(selectRelease('3.2-beta.5', releases).version, '3.2.0-beta.5');
    assert.throws(() => selectRelease('3.2', releases), refusal('unknown_version'));
  });
  it('refuses a release it does not support even when it is on disk', () => {
    assert.throws(() => selectRelease('4.0', releases), refusal('unsupported_version'));
  });
  it('refuses a version string that is not one, with a typed error', () => {
    for (const bad of ['v3.1', '', '3.1.x', 'latest', '3'.repeat(100)]) {
      assert.throws(() => selectRelease(bad, releases), refusal('unknown_version'), bad);
    }
    assert.throws(() => selectRelease(42 as unknown as string, releases), refusal('unknown_version'));
  });
  it('names the exact version to sync when none is on disk, never a placeholder', () => {
    const message = (spec: string, on = releases) => {
      try {
        selectRelease(spec, on);
      } catch (error) {
        assert.ok(error instanceof AdcpSchemaError && error.code === 'unknown_version', spec);
        return error.message;
      }
      assert.fail(`${spec} was selected`);
    };
    // `adcp schemas sync --version` takes an exact version: the one asked for, else the newest
    // pinned release that the same request would then select.
    assert.match(message('3.1.25'), /run "adcp schemas sync --version 3\.1\.25"$/);
    assert.match(
      message('3.1', []),
      /found: none\); set ADCP_SCHEMAS_DIR or run "adcp schemas sync --version 3\.1\.19"$/,
    );
    assert.match(message('3.0', []), /run "adcp schemas sync --version 3\.0\.26"$/);
    assert.match(message('3', []), /run "adcp schemas sync --version 3\.1\.19"$/);
    assert.match(message('3.2-beta.5', []), /run "adcp schemas sync --version 3\.2\.0-beta\.5"$/);
    // A release this library does not speak gets no command that could not help.
    for (const spec of ['3.2', '3.7.1', '5']) {
      const text = message(spec);
      assert.doesNotMatch(text, /schemas sync|<v>/, spec);
      assert.match(text, /not a release this library speaks \(3\.0, 3\.1; opt-in: 3\.2-beta\.5\)$/, spec);
    }
  });
  it('finds the official releases in ../shared/schemas', () => {
    const versions = findReleases().map((r) => r.version);
    for (const v of ['3.0.26', '3.1.19', '3.2.0-beta.5']) assert.ok(versions.includes(v), v);
  });
});
