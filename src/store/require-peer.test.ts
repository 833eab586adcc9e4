import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { requirePeer } from './require-peer.js';

const notFound = (name: string) => () => {
  throw Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- x`), { code: 'MODULE_NOT_FOUND' });
};

describe('requirePeer', () => {
  it('returns the loaded driver', () => {
    assert.equal(
      requirePeer('pg', 'The PostgreSQL store', () => 'driver'),
      'driver',
    );
  });
  it('names the missing package and how to install it', () => {
    assert.throws(
      () => requirePeer('better-sqlite3', 'The SQLite store', notFound('better-sqlite3')),
      (error: Error & { code?: string; packageName?: string }) => {
        assert.equal(error.code, 'missing_peer_dependency');
        assert.equal(error.packageName, 'better-sqlite3');
        assert.equal(
          error.message,
          "The SQLite store needs the database driver 'better-sqlite3', an optional peer dependency of adcp-wire that is not installed: npm install better-sqlite3@^12",
        );
        return true;
      },
    );
  });
  it('tells a driver that fails to load from one that is missing', () => {
    const broken = () => {
      throw new Error('Could not locate the bindings file.\n -> tried: ...');
    };
    assert.throws(
      () => requirePeer('better-sqlite3', 'The SQLite store', broken),
      (error: Error & { code?: string; cause?: unknown }) => {
        assert.equal(error.code, 'peer_dependency_failed');
        assert.match(
          error.message,
          /could not load the database driver 'better-sqlite3' \(Could not locate the bindings file\.\); reinstall it/,
        );
        assert.ok(error.cause instanceof Error);
        return true;
      },
    );
  });
  it('does not take a missing module inside the driver for the driver missing', () => {
    assert.throws(() => requirePeer('pg', 'The PostgreSQL store', notFound('pg-native')), {
      code: 'peer_dependency_failed',
    });
  });
});
