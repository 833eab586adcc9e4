import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { main } from '../../src/cli/main.js';
import { recordingIo } from './fake-io.js';

describe('main', () => {
  it('lists every command and the exit codes for --help, exiting 0', async () => {
    const io = recordingIo();
    assert.equal(await main(['--help'], io), 0);
    for (const name of ['call', 'discover', 'tasks', 'webhooks', 'serve', 'demo', 'conformance']) {
      assert.match(io.out(), new RegExp(`^  ${name} `, 'm'));
    }
    assert.match(io.out(), /^  3  could not reach or read the agent$/m);
  });

  it('prints the package name and version for --version, -V and version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V', 'version']) {
      const io = recordingIo();
      assert.equal(await main([flag], io), 0);
      assert.equal(io.out(), `adcp-wire ${version}\n`);
    }
  });

  it('prints the usage on stderr and exits 2 with no command', async () => {
    const io = recordingIo();
    assert.equal(await main([], io), 2);
    assert.match(io.err(), /^Usage: adcp <command>/);
    assert.equal(io.out(), '');
  });

  it('refuses an unknown command, sanitising the echo', async () => {
    const io = recordingIo();
    assert.equal(await main(['frob\u001b[2J'], io), 2);
    assert.match(io.err(), /^adcp: unknown command 'frob\[2J'\./);
  });

  it('does not treat inherited object keys as commands', async () => {
    const io = recordingIo();
    assert.equal(await main(['constructor'], io), 2);
  });

  for (const [name, usage] of [
    ['call', 'Usage: adcp call <url> <tool>'],
    ['discover', 'Usage: adcp discover <url>'],
    ['tasks', 'Usage: adcp tasks get|cancel <url> <task-id>'],
    ['webhooks', 'Usage: adcp webhooks listen'],
    ['serve', 'Usage: adcp serve'],
    ['demo', 'Usage: adcp demo'],
  ] as const) {
    it(`prints the help of '${name}' for --help`, async () => {
      const io = recordingIo();
      assert.equal(await main([name, '--help'], io), 0);
      assert.ok(io.out().startsWith(usage), io.out().slice(0, 80));
      assert.match(io.out(), /Exit codes/);
    });
  }
});
