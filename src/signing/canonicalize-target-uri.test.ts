import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeTargetUri } from './canonicalize-target-uri.js';

describe('canonicalizeTargetUri (memoised)', () => {
  it('answers a repeated URL with the same frozen result, refusals included', () => {
    const url = 'HTTPS://Seller.Example:443/a/./b/%7euser?q=1#frag';
    const first = canonicalizeTargetUri(url);
    assert.deepEqual(first, {
      ok: true,
      scheme: 'https',
      authority: 'seller.example',
      targetUri: 'https://seller.example/a/b/~user?q=1',
    });
    assert.equal(canonicalizeTargetUri(url), first);
    assert.ok(Object.isFrozen(first));
    const refused = canonicalizeTargetUri('https://[fe80::1%25eth0]/');
    assert.equal(refused.ok, false);
    assert.equal(canonicalizeTargetUri('https://[fe80::1%25eth0]/'), refused);
  });
});
