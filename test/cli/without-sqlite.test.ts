// test-timeout-ms: 300000
// Issue 32 item 17: `adcp serve` in memory and `adcp demo` work without the optional
// better-sqlite3 driver (decision 0167). The real CLI runs in a child process whose
// require() cannot find the driver (test/cli/without-sqlite-driver.cjs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdcpClient } from '../../src/client/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../bin/adcp.js');
const env = {
  ...process.env,
  ADCP_SCHEMAS_DIR: path.resolve(here, '../../../shared/schemas'),
  NODE_OPTIONS: `--require ${path.join(here, 'without-sqlite-driver.cjs')}`,
};

describe('the CLI without better-sqlite3', { timeout: 240_000 }, () => {
  it('the blocker works: a SQLite file (--db) is refused with the install command, exit 1', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'adcp-nosqlite-'));
    try {
      const run = spawnSync(process.execPath, [bin, 'serve', '--port', '0', '--db', path.join(dir, 's.db')], {
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /needs the database driver 'better-sqlite3'.*npm install better-sqlite3/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adcp serve (in memory) starts and answers get_products', async () => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--json'], { env });
    try {
      let out = '';
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const first = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        child.once('exit', (code) => reject(new Error(`adcp serve exited ${code}: ${err}`)));
      });
      const banner = JSON.parse(first) as { mcp: string };
      const client = new AdcpClient({ url: banner.mcp, protocol: 'mcp', timeoutMs: 30_000 });
      try {
        const result = await client.call('get_products', { buying_mode: 'brief', brief: 'pets' });
        assert.equal(result.status, 'completed');
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    }
  });

  it('adcp demo plays every step with its state in memory', () => {
    const run = spawnSync(process.execPath, [bin, 'demo', '--json'], { env, encoding: 'utf8', timeout: 200_000 });
    assert.equal(run.status, 0, run.stderr + run.stdout);
    const summary = JSON.parse(run.stdout) as { ok: boolean };
    assert.equal(summary.ok, true);
  });
});
