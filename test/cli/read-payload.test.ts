import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPayload } from '../../src/cli/read-payload.js';
import { UsageError } from '../../src/cli/args.js';

describe('readPayload', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adcp-cli-'));
    await writeFile(join(dir, 'args.json'), '{"brief":"coffee"}');
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('parses inline JSON', async () => {
    assert.deepEqual(await readPayload('{"a":1}', dir), { a: 1 });
  });

  it('reads @file relative to the working directory', async () => {
    assert.deepEqual(await readPayload('@args.json', dir), { brief: 'coffee' });
  });

  it('reads @- from stdin', async () => {
    assert.deepEqual(await readPayload('@-', dir, async () => '{"s":true}'), { s: true });
  });

  it('gives an empty object when there is no argument', async () => {
    assert.deepEqual(await readPayload(undefined, dir), {});
  });

  it('refuses a missing file with what to do', async () => {
    await assert.rejects(readPayload('@nope.json', dir), /cannot read 'nope.json' \(ENOENT\)/);
  });

  it('refuses JSON that is not an object', async () => {
    await assert.rejects(readPayload('[1]', dir), UsageError);
  });

  it('refuses invalid JSON and suggests quoting', async () => {
    await assert.rejects(readPayload('{brief:1}', dir), /not valid JSON.*single quotes/);
  });
});
