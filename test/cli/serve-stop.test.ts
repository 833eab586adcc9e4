// `adcp serve` as a real process: Ctrl-C stops it promptly even while a webhook is being retried.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { AdcpClient } from '../../src/client/index.js';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));

/** `adcp serve --port 0 ...args` with its human output collected; SIGKILLed after 90 s at the latest. */
function startServe(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const served = { child, out: '', exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
  child.stdout.on('data', (chunk: Buffer) => (served.out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (served.out += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const stop = () => {
    clearTimeout(killer);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return { served, stop };
}

describe('adcp serve stopping', () => {
  it('stops within seconds on SIGINT while a webhook to an unreachable buyer is retried, and says so', async () => {
    // --shutdown-timeout 0: no drain, so the running task is cut short (serve-drain.test.ts drains).
    const { served, stop } = startServe(['--shutdown-timeout', '0']);
    const { child, exited } = served;
    try {
      for (let i = 0; i < 2400 && !/MCP  (\S+)/.test(served.out); i++) await new Promise((r) => setTimeout(r, 25));
      const mcpUrl = /MCP  (\S+)/.exec(served.out)?.[1] ?? '';
      assert.match(mcpUrl, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, served.out);
      const client = new AdcpClient({ url: mcpUrl, protocol: 'mcp' });
      const buy = await client.call('create_media_buy', {
        ...mediaBuyRequest([packageRequest('olv_pets', 5)]),
        // Port 9 on loopback refuses connections: every delivery attempt fails and is retried.
        push_notification_config: { url: 'http://127.0.0.1:9/webhooks', operation_id: 'op-stop' },
      });
      await client.close();
      assert.equal(buy.status, 'submitted');
      // The task reports `working` after 0.5 s: once it does, a delivery has failed and a retry waits.
      const poller = new AdcpClient({ url: mcpUrl, protocol: 'mcp' });
      for (let i = 0; i < 300; i++) {
        const status = await poller.call('get_task_status', { task_id: buy.taskId ?? '' });
        if (status.data?.['status'] === 'working') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await poller.close();
      await new Promise((r) => setTimeout(r, 300));
      const stopAsked = Date.now();
      child.kill('SIGINT');
      const code = await exited;
      const tookMs = Date.now() - stopAsked;
      assert.equal(code, 0, served.out);
      // It took 28 s before (webhook retries waited out); a loaded machine still stops well under 15 s.
      assert.ok(tookMs < 15_000, `took ${tookMs} ms to stop`);
      assert.match(served.out, /SIGINT: closing the seller/);
      assert.match(served.out, /stopped; 1 running task stopped \(now failed\); \d+ webhooks? not delivered/);
    } finally {
      stop();
    }
  });

  it('drains for at most 2 s on Ctrl-C without --shutdown-timeout (10 s is for SIGTERM)', async () => {
    const { served, stop } = startServe([]);
    const { child, exited } = served;
    try {
      for (let i = 0; i < 2400 && !/Ctrl-C to stop/.test(served.out); i++) await new Promise((r) => setTimeout(r, 25));
      child.kill('SIGINT');
      assert.equal(await exited, 0, served.out);
      assert.match(served.out, /SIGINT: closing the seller \(draining for up to 2 s;/);
    } finally {
      stop();
    }
  });
});
