import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateVersion } from './negotiate-version.js';

const served = (args: Record<string, unknown>, supported = ['3.0', '3.1']) => {
  const out = negotiateVersion(args, supported, supported[supported.length - 1]!);
  return out.ok ? out.release : out.error.code;
};

describe('negotiateVersion (versioning.md, step 3)', () => {
  it('serves an exact match', () => {
    assert.equal(served({ adcp_version: '3.0' }), '3.0');
    assert.equal(served({ adcp_version: '3.1' }), '3.1');
  });
  it('downshifts to the highest supported release at or below the pin, gaps included', () => {
    assert.equal(served({ adcp_version: '3.5' }), '3.1');
    assert.equal(served({ adcp_version: '3.1' }, ['3.0', '3.2']), '3.0');
  });
  it('never downshifts a release pin onto a pre-release, and matches pre-releases exactly', () => {
    assert.equal(served({ adcp_version: '3.1' }, ['3.1-beta', '3.1']), '3.1');
    assert.equal(served({ adcp_version: '3.1' }, ['3.0', '3.1-beta']), '3.0');
    assert.equal(served({ adcp_version: '3.1-beta' }, ['3.0', '3.1']), 'VERSION_UNSUPPORTED');
  });
  it('refuses a pin below every supported release, another major, and disagreeing fields', () => {
    assert.equal(served({ adcp_version: '3.0' }, ['3.1']), 'VERSION_UNSUPPORTED');
    assert.equal(served({ adcp_version: '99.0' }), 'VERSION_UNSUPPORTED');
    assert.equal(served({ adcp_version: '3.1', adcp_major_version: 4 }), 'VERSION_UNSUPPORTED');
  });
  it('serves the highest release of a legacy adcp_major_version, and refuses an unknown major', () => {
    assert.equal(served({ adcp_major_version: 3 }), '3.1');
    assert.equal(served({ adcp_major_version: 99 }), 'VERSION_UNSUPPORTED');
  });
  it('uses the default release when nothing is sent', () => {
    assert.equal(served({}), '3.1');
  });
  it('lists what is supported in the error details (error-details/version-unsupported.json)', () => {
    const out = negotiateVersion({ adcp_version: '99.0' }, ['3.0', '3.1'], '3.1');
    assert.ok(!out.ok);
    assert.deepEqual(out.error.details, {
      supported_versions: ['3.0', '3.1'],
      supported_majors: [3],
      adcp_version: '99.0',
    });
    assert.equal(out.error.recovery, 'correctable');
  });
  it('refuses a malformed version as an invalid request naming the field', () => {
    const out = negotiateVersion({ adcp_version: '3.1.2' }, ['3.1'], '3.1');
    assert.ok(!out.ok);
    assert.equal(out.error.code, 'INVALID_REQUEST');
    assert.equal(out.error.field, 'adcp_version');
    assert.equal(served({ adcp_major_version: '3' }), 'INVALID_REQUEST');
  });
});
