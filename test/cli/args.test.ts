import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommand, parsePort, parseSeconds, printable, UsageError } from '../../src/cli/args.js';
import { recordingIo } from './fake-io.js';

const SPEC = {
  name: 'thing',
  help: 'Usage: adcp thing <url> [extra]',
  positionals: ['url', 'extra'],
  min: 1,
  options: { json: { type: 'boolean' }, port: { type: 'string' } },
} as const;

describe('parseCommand', () => {
  it('prints the help text on stdout and returns 0 for --help', () => {
    const io = recordingIo();
    assert.equal(parseCommand(['--help'], SPEC, io), 0);
    assert.equal(io.out(), 'Usage: adcp thing <url> [extra]\n');
  });

  it('returns the values and positionals of a valid command line', () => {
    const parsed = parseCommand(['http://x', '--json', '--port', '3'], SPEC, recordingIo());
    assert.ok(typeof parsed === 'object');
    assert.deepEqual({ ...parsed.values }, { json: true, port: '3' });
    assert.deepEqual(parsed.positionals, ['http://x']);
  });

  it('names the missing positional and points to --help', () => {
    const io = recordingIo();
    assert.equal(parseCommand([], SPEC, io), 2);
    assert.match(io.err(), /adcp thing: missing <url>\./);
    assert.match(io.err(), /Run 'adcp thing --help' for usage\./);
  });

  it('refuses an unknown option with exit code 2', () => {
    const io = recordingIo();
    assert.equal(parseCommand(['http://x', '--nope'], SPEC, io), 2);
    assert.match(io.err(), /--nope/);
  });

  it('suggests the closest option for a mistyped one', () => {
    for (const [typed, meant] of [
      ['--jsn', 'json'],
      ['--prot', 'port'],
      ['--JSON', 'json'],
    ] as const) {
      const io = recordingIo();
      assert.equal(parseCommand(['http://x', typed], SPEC, io), 2);
      assert.match(io.err(), new RegExp(`unknown option '${typed}'; did you mean --${meant}\\?`));
    }
    const far = recordingIo();
    assert.equal(parseCommand(['http://x', '--verbose'], SPEC, far), 2);
    assert.doesNotMatch(far.err(), /did you mean/);
  });

  it('refuses an extra positional', () => {
    const io = recordingIo();
    assert.equal(parseCommand(['a', 'b', 'c'], SPEC, io), 2);
    assert.match(io.err(), /unexpected argument 'c'/);
  });
});

describe('parseSeconds', () => {
  it('turns seconds into milliseconds', () => {
    assert.equal(parseSeconds('timeout', '2.5'), 2500);
  });

  it('refuses a negative or non-numeric value', () => {
    assert.throws(() => parseSeconds('timeout', '-1'), UsageError);
    assert.throws(() => parseSeconds('timeout', 'soon'), /--timeout takes a positive number of seconds/);
  });
});

describe('parsePort', () => {
  it('accepts 0 and refuses a port above 65535', () => {
    assert.equal(parsePort('0', 3000), 0);
    assert.equal(parsePort(undefined, 3000), 3000);
    assert.throws(() => parsePort('70000', 3000), /0 to 65535/);
  });
});

describe('printable', () => {
  it('strips escape sequences and line breaks from seller text', () => {
    assert.equal(printable('ok\u001b[31m\r\nforged'), 'ok[31m forged');
  });

  it('caps the length with an ellipsis', () => {
    assert.equal(printable('x'.repeat(300)).length, 200);
  });
});
