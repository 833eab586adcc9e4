import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { makeTarGz, paxPath } from '../../../test/schemas/helpers/make-tar.js';
import { DEFAULT_TAR_LIMITS, readTarGz, TarError } from './read-tar.js';

const refused = (code: TarError['code']) => (error: unknown) => error instanceof TarError && error.code === code;

describe('readTarGz', () => {
  it('reads regular files and folders, long names through pax headers', () => {
    const long = `adcp-9.9.9/schemas/${'deep/'.repeat(30)}x.json`;
    const files = readTarGz(
      makeTarGz([
        { name: 'adcp-9.9.9/', type: '5' },
        { name: 'adcp-9.9.9/schemas/manifest.json', data: '{"tools":{}}' },
        paxPath(long),
        { name: 'ignored-short-name', data: '{}' },
      ]),
    );
    assert.deepEqual(
      files.map((f) => [f.path, f.data.toString()]),
      [
        ['adcp-9.9.9/schemas/manifest.json', '{"tools":{}}'],
        [long, '{}'],
      ],
    );
  });

  for (const name of [
    '../evil.json',
    'adcp/../../evil.json',
    '/etc/evil.json',
    'C:/evil.json',
    'a\\..\\evil',
    'a/./b',
    'a//b',
  ]) {
    it(`refuses the entry path ${JSON.stringify(name)}`, () => {
      assert.throws(() => readTarGz(makeTarGz([{ name, data: 'x' }])), refused('unsafe_path'));
    });
  }

  it('refuses a traversal hidden in a pax path', () => {
    assert.throws(
      () => readTarGz(makeTarGz([paxPath('ok/../../evil'), { name: 'ok', data: 'x' }])),
      refused('unsafe_path'),
    );
  });

  for (const [type, what] of [
    ['2', 'symlink'],
    ['1', 'hard link'],
    ['3', 'device'],
    ['6', 'fifo'],
  ] as const) {
    it(`refuses a ${what}`, () => {
      assert.throws(
        () => readTarGz(makeTarGz([{ name: 'adcp/link', type, linkname: '/etc/passwd' }])),
        refused('unsupported_entry'),
      );
    });
  }

  it('stops a gzip bomb at the unpacked limit', () => {
    const bomb = makeTarGz([{ name: 'big', data: Buffer.alloc(4 * 1024 * 1024) }]);
    assert.ok(bomb.length < 64 * 1024, 'compresses well');
    assert.throws(
      () => readTarGz(bomb, { ...DEFAULT_TAR_LIMITS, maxUnpackedBytes: 1024 * 1024 }),
      refused('too_large'),
    );
  });

  it('refuses a file over the per-file limit and too many entries', () => {
    const big = makeTarGz([{ name: 'big', data: Buffer.alloc(2048) }]);
    assert.throws(() => readTarGz(big, { ...DEFAULT_TAR_LIMITS, maxFileBytes: 1024 }), refused('too_large'));
    const many = makeTarGz(Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, data: 'x' })));
    assert.throws(() => readTarGz(many, { ...DEFAULT_TAR_LIMITS, maxEntries: 10 }), refused('too_many_entries'));
  });

  it('refuses corrupt input: not gzip, a bad header checksum, a truncated entry', () => {
    assert.throws(() => readTarGz(Buffer.from('not gzip')), refused('corrupt'));
    const header = Buffer.alloc(512);
    header.write('name', 0);
    header.write('00000000001\0', 124);
    header.write('0000001\0', 148);
    assert.throws(() => readTarGz(gzipSync(Buffer.concat([header, Buffer.alloc(1024)]))), refused('corrupt'));
    const good = makeTarGz([{ name: 'f', data: Buffer.alloc(600) }]);
    const truncated = gzipSync(gunzipSync(good).subarray(0, 700));
    assert.throws(() => readTarGz(truncated), refused('corrupt'));
  });
});
