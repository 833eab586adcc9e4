// `adcp ... | head`: the reader closes the pipe before adcp writes; the write fails with EPIPE,
// which must not crash the process (an unhandled 'error' event and a stack trace, exit 1).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));

describe('adcp writing to a closed pipe', () => {
  it('ends with its own exit code and no EPIPE crash', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader is gone before anything is written
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.doesNotMatch(stderr, /EPIPE|Unhandled 'error' event/);
    assert.equal(code, 0);
  });
});
