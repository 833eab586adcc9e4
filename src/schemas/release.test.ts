import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareBundleVersions, compareWireVersions, parseWireVersion, toWireVersion } from './release.js';

describe('toWireVersion', () => {
  it('drops the patch and keeps the pre-release tag (versioning.md, "Patches are not negotiated")', () => {
    assert.equal(toWireVersion('3.1.19'), '3.1');
    assert.equal(toWireVersion('3.2.0-beta.5'), '3.2-beta.5');
  });
  it('refuses what is not a bundle version', () => {
    assert.throws(() => toWireVersion('3.1'), RangeError);
  });
});

describe('parseWireVersion', () => {
  it('accepts release precision only', () => {
    assert.deepEqual(parseWireVersion('3.1'), { major: 3, minor: 1 });
    assert.deepEqual(parseWireVersion('3.1-beta.1'), { major: 3, minor: 1, prerelease: 'beta.1' });
    for (const bad of ['3.1.2', '3.1.0-beta.1', 'v3.1', '3', 31, null]) assert.equal(parseWireVersion(bad), undefined);
  });
});

describe('version order', () => {
  it('sorts a pre-release before its release', () => {
    const sorted = ['3.1.0', '3.0.26', '3.1.0-beta.2', '3.1.0-beta.10', '3.0.3'].sort(compareBundleVersions);
    assert.deepEqual(sorted, ['3.0.3', '3.0.26', '3.1.0-beta.2', '3.1.0-beta.10', '3.1.0']);
    assert.deepEqual(['3.1', '3.0', '3.1-beta', '3.2'].sort(compareWireVersions), ['3.0', '3.1-beta', '3.1', '3.2']);
  });
});
