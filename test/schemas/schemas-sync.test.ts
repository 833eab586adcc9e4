// test-timeout-ms: 300000
// `adcp schemas sync` against the official 3.0.26 tarball and its .sha256 sidecar, served from a
// loopback HTTP server and read from a file path, and against hostile copies: a flipped byte, a
// sidecar that agrees with a tampered tarball, a traversal entry, an oversized body. Every failure
// leaves the cache as it was; a synced release validates offline from the cache alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { SchemaSyncError, syncRelease } from '../../src/schemas/sync/sync-release.js';
import { findReleases, schemaSearchPath } from '../../src/schemas/schema-dirs.js';
import { getValidator } from '../../src/schemas/adcp-validator.js';
import { makeTarGz } from './helpers/make-tar.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const protocolDir = path.resolve(here, '../../../shared/protocol');
const official = readFileSync(path.join(protocolDir, '3.0.26.tgz'));
const sidecar = readFileSync(path.join(protocolDir, '3.0.26.tgz.sha256'), 'utf8');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Serves `files` by path; `/huge.tgz` streams past any cap without a content-length. */
function serve(files: Map<string, Buffer | string>): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/huge.tgz') {
      res.writeHead(200, { 'content-type': 'application/gzip' });
      const chunk = Buffer.alloc(1024 * 1024);
      let sent = 0;
      const push = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent >= 64) res.end();
        else res.once('drain', push);
      };
      res.on('close', () => (sent = 64));
      push();
      return;
    }
    const body = files.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    stdout: { write: (s: string) => out.push(s) },
    stderr: { write: (s: string) => err.push(s) },
    env,
    cwd: protocolDir,
  };
  return { cli, out: () => out.join(''), err: () => err.join('') };
}

describe('adcp schemas sync', { timeout: 300_000 }, () => {
  let tmp = '';
  let server: Server;
  let base = '';
  const files = new Map<string, Buffer | string>();

  before(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'adcp-sync-'));
    const tampered = Buffer.from(official);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 100) ^ 0xff, tampered.length - 100);
    const traversal = makeTarGz([
      { name: 'adcp-9.9.9/schemas/manifest.json', data: '{"tools":{}}' },
      { name: 'adcp-9.9.9/schemas/../../../escaped.json', data: '{}' },
    ]);
    files.set('/3.0.26.tgz', official);
    files.set('/3.0.26.tgz.sha256', sidecar);
    files.set('/tampered/3.0.26.tgz', tampered);
    files.set('/tampered/3.0.26.tgz.sha256', sidecar);
    files.set('/agreeing/3.0.26.tgz', tampered); // a sidecar that matches the tampered copy: the pin still refuses it
    files.set('/agreeing/3.0.26.tgz.sha256', `${sha(tampered)}  3.0.26.tgz\n`);
    files.set('/9.9.9.tgz', traversal);
    files.set('/9.9.9.tgz.sha256', `${sha(traversal)}  9.9.9.tgz\n`);
    files.set('/huge.tgz.sha256', `${'0'.repeat(64)}  huge.tgz\n`);
    server = await serve(files);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(tmp, { recursive: true, force: true });
  });

  it('syncs 3.0.26 over loopback HTTP, pinned and sidecar checksums matching; it validates from the cache alone', async () => {
    const cache = path.join(tmp, 'http', 'schemas');
    const result = await syncRelease({ version: '3.0.26', from: `${base}/3.0.26.tgz`, cacheDir: cache });
    assert.equal(result.trust, 'checksum-pinned');
    assert.equal(result.sha256, sidecar.split(/\s/)[0]);
    assert.ok(result.files > 500, `${result.files} files`);
    assert.ok(existsSync(path.join(cache, '3.0.26', 'manifest.json')));
    assert.deepEqual(readdirSync(cache), ['3.0.26'], 'no staging folder left');
    const dirs = schemaSearchPath({ ADCP_SCHEMAS_DIR: path.join(tmp, 'none'), ADCP_CACHE_DIR: path.join(tmp, 'http') });
    assert.deepEqual(
      findReleases(dirs.filter((d) => d.startsWith(tmp))).map((r) => r.version),
      ['3.0.26'],
    );
    const validator = getValidator('3.0.26', { dirs: [cache], precompiled: false });
    assert.equal(validator.request('get_products', { buying_mode: 'brief', brief: 'CTV' }).ok, true);
    assert.equal(validator.request('get_products', { buying_mode: 'retail' }).ok, false);
  });

  it('syncs from a file path through the CLI (exit 0), and list shows the cache', async () => {
    const copy = path.join(tmp, 'local.tgz');
    copyFileSync(path.join(protocolDir, '3.0.26.tgz'), copy);
    copyFileSync(path.join(protocolDir, '3.0.26.tgz.sha256'), `${copy}.sha256`);
    const env = { ADCP_CACHE_DIR: path.join(tmp, 'file'), ADCP_SCHEMAS_DIR: path.join(tmp, 'none') };
    const run = io(env);
    assert.equal(await main(['schemas', 'sync', '--version', '3.0.26', '--from', copy], run.cli), 0, run.err());
    assert.match(
      run.out(),
      /AdCP 3\.0\.26: \d+ schema files .*\n.*trust: checksum \(matches the sidecar and the digest pinned/,
    );
    const listed = io(env);
    assert.equal(await main(['schemas', 'list', '--json'], listed.cli), 0);
    const rows = (JSON.parse(listed.out()) as { releases: { version: string; where: string }[] }).releases;
    assert.deepEqual(
      rows.filter((r) => r.where === 'sync cache').map((r) => r.version),
      ['3.0.26'],
    );
  });

  for (const [name, url, code, exit] of [
    ['a flipped byte (sidecar disagrees)', '/tampered/3.0.26.tgz', 'checksum_mismatch', 1],
    ['a tampered tarball whose sidecar agrees (the pin disagrees)', '/agreeing/3.0.26.tgz', 'checksum_mismatch', 1],
    ['a 404', '/missing/3.0.26.tgz', 'unreachable', 3],
  ] as const) {
    it(`refuses ${name} (${code}, exit ${exit}) and keeps the synced copy`, async () => {
      const cache = path.join(tmp, 'keep', 'schemas');
      await syncRelease({ version: '3.0.26', from: `${base}/3.0.26.tgz`, cacheDir: cache });
      const before = readFileSync(path.join(cache, '3.0.26', 'manifest.json'));
      await assert.rejects(
        syncRelease({ version: '3.0.26', from: `${base}${url}`, cacheDir: cache }),
        (error: unknown) => error instanceof SchemaSyncError && error.code === code,
      );
      assert.deepEqual(readdirSync(cache), ['3.0.26']);
      assert.deepEqual(readFileSync(path.join(cache, '3.0.26', 'manifest.json')), before);
      const run = io({ ADCP_CACHE_DIR: path.join(tmp, 'keep') });
      assert.equal(await main(['schemas', 'sync', '--version', '3.0.26', '--from', `${base}${url}`], run.cli), exit);
      assert.match(run.err(), new RegExp(`\\(${code}\\); the cache is unchanged`));
    });
  }

  it('refuses an archive entry that escapes the target, writing nothing', async () => {
    const cache = path.join(tmp, 'traversal', 'schemas');
    await assert.rejects(
      syncRelease({ version: '9.9.9', from: `${base}/9.9.9.tgz`, cacheDir: cache }),
      (error: unknown) => error instanceof SchemaSyncError && error.code === 'bad_archive',
    );
    assert.deepEqual(existsSync(cache) ? readdirSync(cache) : [], []);
    assert.equal(existsSync(path.join(tmp, 'escaped.json')), false);
    assert.equal(existsSync(path.join(tmp, 'traversal', 'escaped.json')), false);
  });

  it('stops an oversized download at the cap, declared or streamed', async () => {
    const cache = path.join(tmp, 'huge', 'schemas');
    const limits = { maxTarballBytes: 1024 * 1024, maxUnpackedBytes: 1 << 30, maxEntries: 10, maxFileBytes: 1 << 30 };
    await assert.rejects(
      syncRelease({ version: '3.0.26', from: `${base}/3.0.26.tgz`, cacheDir: cache, limits }),
      (error: unknown) =>
        error instanceof SchemaSyncError && error.code === 'too_large' && /is \d+ bytes/.test(error.message),
    );
    await assert.rejects(
      syncRelease({ version: '3.0.26', from: `${base}/huge.tgz`, cacheDir: cache, limits }),
      (error: unknown) => error instanceof SchemaSyncError && error.code === 'too_large',
    );
    const big = path.join(tmp, 'big.tgz');
    writeFileSync(big, Buffer.alloc(2 * 1024 * 1024));
    await assert.rejects(
      syncRelease({ version: '3.0.26', from: big, cacheDir: cache, limits }),
      (error: unknown) => error instanceof SchemaSyncError && error.code === 'too_large',
    );
    assert.equal(existsSync(cache) ? readdirSync(cache).length : 0, 0);
  });

  it('refuses plain http off loopback, an unknown version and a bad --from (usage, exit 2)', async () => {
    await assert.rejects(
      syncRelease({ version: '3.0.26', from: 'http://example.com/3.0.26.tgz', cacheDir: path.join(tmp, 'x') }),
      (error: unknown) => error instanceof SchemaSyncError && /use https/.test(error.message),
    );
    const env = { ADCP_CACHE_DIR: path.join(tmp, 'usage') };
    for (const argv of [
      ['schemas', 'sync', '--version', '3.x'],
      ['schemas', 'sync', '--from', 'ftp://host/x.tgz'],
      ['schemas', 'show'],
      ['schemas', 'show', 'no_such_tool'],
      ['schemas', 'frobnicate'],
    ]) {
      const run = io(env);
      assert.equal(await main(argv, run.cli), 2, argv.join(' '));
      assert.match(run.err(), /^adcp schemas( sync)?: /);
    }
  });
});
