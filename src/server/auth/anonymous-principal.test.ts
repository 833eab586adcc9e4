import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { anonymousPrincipal } from './anonymous-principal.js';

describe('anonymousPrincipal', () => {
  it('keys an IPv4 caller by its address, mapped or not', () => {
    assert.equal(anonymousPrincipal('127.0.0.2'), 'anonymous@127.0.0.2');
    assert.equal(anonymousPrincipal('::ffff:10.1.2.3'), 'anonymous@10.1.2.3');
  });

  it('keys an IPv6 caller by its /64, however the address is written', () => {
    const expected = 'anonymous@2001:db8:0:1::/64';
    assert.equal(anonymousPrincipal('2001:db8:0:1::5'), expected);
    assert.equal(anonymousPrincipal('2001:0db8:0000:0001:ffff:1:2:3'), expected);
    assert.equal(anonymousPrincipal('2001:DB8:0:1:a::b'), expected);
    assert.equal(anonymousPrincipal('::1'), 'anonymous@0:0:0:0::/64');
    assert.equal(anonymousPrincipal('fe80::1%eth0'), 'anonymous@fe80:0:0:0::/64');
  });

  it('gives a caller without an address one shared key', () => {
    assert.equal(anonymousPrincipal(undefined), 'anonymous@unknown');
  });
});
