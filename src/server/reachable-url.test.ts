import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { reachableUrl } from './create-adcp-server.js';

describe('reachableUrl', () => {
  it('keeps a concrete listen address', () => {
    assert.equal(reachableUrl({ address: '127.0.0.1', family: 'IPv4', port: 3000 }), 'http://127.0.0.1:3000');
    assert.equal(reachableUrl({ address: '::1', family: 'IPv6', port: 3000 }), 'http://[::1]:3000');
  });

  it('turns 0.0.0.0 and :: (no host anyone can connect to) into loopback', () => {
    assert.equal(reachableUrl({ address: '0.0.0.0', family: 'IPv4', port: 8080 }), 'http://127.0.0.1:8080');
    assert.equal(reachableUrl({ address: '::', family: 'IPv6', port: 8080 }), 'http://[::1]:8080');
  });
});
