// `adcp call --wait` as a real process: Ctrl-C stops the wait at once and says what it left running.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { startReferenceSeller } from '../../src/seller/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));
const BUY =
  '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}';

describe('adcp call --wait interrupted', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    // The buy works for ten minutes: the wait is certain to be running when Ctrl-C comes.
    seller = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      timings: { workingAfterMs: 20, completeAfterMs: 600_000 },
    });
  });
  after(async () => seller.close());

  it('stops within 2 s on SIGINT, exits 130 and prints the task id it left running', async () => {
    const child = spawn(process.execPath, [BIN, 'call', seller.mcpUrl, 'create_media_buy', BUY, '--wait'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    try {
      // Waiting shows progress on stderr once the buy is accepted (a loaded machine takes seconds to start).
      for (let i = 0; i < 2400 && !/submitted|working/.test(err); i++) await new Promise((r) => setTimeout(r, 25));
      assert.match(err, /submitted|working/, err);
      const stopAsked = Date.now();
      child.kill('SIGINT');
      const code = await exited;
      const tookMs = Date.now() - stopAsked;
      assert.equal(code, 130, `${out}\n${err}`);
      assert.ok(tookMs < 2000, `took ${tookMs} ms to stop`);
      const follow = /interrupted; the task is still running at the agent\. Follow it: adcp tasks get (\S+) (\S+)/.exec(
        err,
      );
      assert.ok(follow, err);
      assert.equal(follow[1], seller.mcpUrl);
      // The id is the AdCP task the agent is still working on.
      const io = recordingIo();
      assert.equal(await main(['tasks', 'get', seller.mcpUrl, follow[2] ?? '', '--json'], io), 0, io.err());
      assert.ok(['submitted', 'working'].includes((JSON.parse(io.out()) as { status: string }).status), io.out());
    } finally {
      clearTimeout(killer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
