import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isSpecialUseAddress } from './special-use-address.js';

describe('isSpecialUseAddress', () => {
  it('refuses every IPv4 special-use range, at both ends', () => {
    for (const ip of [
      '0.0.0.0',
      '10.255.255.255',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.31.0.1',
      '192.0.0.1',
      '192.0.0.255',
      '192.0.2.1',
      '192.31.196.1',
      '192.52.193.1',
      '192.88.99.1',
      '192.168.1.1',
      '192.175.48.1',
      '198.18.0.1',
      '198.19.255.255',
      '198.51.100.1',
      '203.0.113.1',
      '224.0.0.1',
      '239.255.255.255',
      '240.0.0.1',
      '255.255.255.255',
    ])
      assert.equal(isSpecialUseAddress(ip), true, ip);
  });

  it('accepts public IPv4 next to the ranges', () => {
    for (const ip of ['1.1.1.1', '8.8.8.8', '100.128.0.1', '172.32.0.1', '192.0.3.1', '198.20.0.1', '223.255.255.255'])
      assert.equal(isSpecialUseAddress(ip), false, ip);
  });

  it('unwraps IPv6 forms that embed IPv4 and judges the IPv4 address', () => {
    for (const ip of ['[::ffff:7f00:1]', '::ffff:127.0.0.1', '[64:ff9b::a9fe:a9fe]', '64:ff9b::10.0.0.1'])
      assert.equal(isSpecialUseAddress(ip), true, ip);
    for (const ip of ['::ffff:8.8.8.8', '[64:ff9b::808:808]']) assert.equal(isSpecialUseAddress(ip), false, ip);
  });

  it('refuses IPv6 outside global unicast and the special ranges inside it', () => {
    for (const ip of [
      '::',
      '::1',
      '[::7f00:1]',
      '::127.0.0.1',
      '64:ff9b:1::1',
      '100::1',
      '[2002:7f00:1::]',
      '2002:808:808::1',
      '2001::1',
      '2001:db8::1',
      '2001:10::1',
      '2620:4f:8000::1',
      '3fff::1',
      '5f00::1',
      'fc00::1',
      'fd12::1',
      'fe80::1%eth0',
      'fec0::1',
      'ff02::1',
    ])
      assert.equal(isSpecialUseAddress(ip), true, ip);
  });

  it('accepts public IPv6', () => {
    for (const ip of ['2606:4700:4700::1111', '[2a00:1450:4001::200e]', '2001:4860:4860::8888'])
      assert.equal(isSpecialUseAddress(ip), false, ip);
  });

  it('refuses what is not an IP literal', () => {
    for (const ip of ['', 'localhost', '1.2.3', '1.2.3.256', '::g', '::ffff:1.2.3.999', '1::2::3'])
      assert.equal(isSpecialUseAddress(ip), true, ip);
  });
});
