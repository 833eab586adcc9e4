import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startReferenceSeller } from './start-reference-seller.js';

/** File descriptors of this process open on `file` (or its -wal/-shm); Linux `/proc` only. */
function openHandlesOn(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(file)) count += 1;
    } catch {
      // the fd closed while we looked (readdir's own handle)
    }
  }
  return count;
}

describe('startReferenceSeller', { skip: !existsSync('/proc/self/fd') }, () => {
  it('refuses a bad auth configuration before opening its stores (no handle left open)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'adcp-seller-'));
    const dbPath = path.join(dir, 'seller.db');
    try {
      await assert.rejects(
        startReferenceSeller({ dbPath, auth: { tokens: { short: 'acme' } } }),
        (error: unknown) => error instanceof TypeError && /auth\.tokens/.test(error.message),
      );
      assert.equal(openHandlesOn(dbPath), 0);
      await assert.rejects(
        startReferenceSeller({ dbPath, auth: {}, authenticate: () => 'acme' }),
        (error: unknown) => error instanceof TypeError && /auth or authenticate/.test(error.message),
      );
      assert.equal(openHandlesOn(dbPath), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closes its stores when the server cannot start (port taken)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'adcp-seller-'));
    const first = await startReferenceSeller({ dbPath: path.join(dir, 'first.db') });
    const dbPath = path.join(dir, 'second.db');
    try {
      const port = Number(new URL(first.url).port);
      await assert.rejects(startReferenceSeller({ dbPath, port }), /EADDRINUSE/);
      assert.equal(openHandlesOn(dbPath), 0);
    } finally {
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds its database open while it runs and closes it on close()', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'adcp-seller-'));
    const dbPath = path.join(dir, 'seller.db');
    try {
      const seller = await startReferenceSeller({ dbPath });
      assert.ok(openHandlesOn(dbPath) > 0, 'the running seller holds its SQLite file');
      await seller.close();
      assert.equal(openHandlesOn(dbPath), 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
