// test-timeout-ms: 240000
// `adcp serve` as a real process on SIGTERM: it stops taking connections, lets a running media buy
// finish and its webhook go out, then exits 0 within --shutdown-timeout; a second signal exits at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { AdcpClient } from '../../src/client/index.js';
import { main } from '../../src/cli/main.js';
import { recordingIo } from './fake-io.js';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));

interface Served {
  child: ChildProcess;
  base: string;
  mcp: string;
  output(): string;
  exited: Promise<number | null>;
}

async function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 200_000);
  void exited.then(() => clearTimeout(killer));
  for (let i = 0; i < 2400 && !/MCP  (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 25));
  const mcp = /MCP  (\S+)/.exec(out)?.[1] ?? '';
  assert.match(mcp, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, out);
  return { child, base: mcp.replace(/\/mcp$/, ''), mcp, output: () => out, exited };
}

async function refusesConnections(base: string): Promise<boolean> {
  try {
    await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return false;
  } catch {
    return true;
  }
}

describe('adcp serve draining on SIGTERM', () => {
  const webhooks: { operation_id?: string; status?: string }[] = [];
  let receiver: Server;
  let receiverUrl = '';
  const children: ChildProcess[] = [];
  before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        webhooks.push(JSON.parse(body) as { operation_id?: string; status?: string });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('refuses new connections, finishes the running media buy, delivers its webhook and exits 0', async () => {
    const served = await serve(['--shutdown-timeout', '150']);
    children.push(served.child);
    assert.equal((await fetch(`${served.base}/readyz`)).status, 200);
    const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
    const buy = await client.call('create_media_buy', {
      ...mediaBuyRequest([packageRequest('olv_pets', 5)]),
      push_notification_config: { url: receiverUrl, operation_id: 'op-drain' },
    });
    await client.close();
    assert.equal(buy.status, 'submitted');
    const stopAsked = Date.now();
    served.child.kill('SIGTERM');
    let refused = false;
    for (let i = 0; i < 100 && !refused; i++) refused = await refusesConnections(served.base);
    assert.ok(refused, `a draining server takes no new connection: ${served.output()}`);
    const code = await served.exited;
    const tookMs = Date.now() - stopAsked;
    assert.equal(code, 0, served.output());
    // The media buy completes 2 s after it was made: the drain waited for it, not for the 150 s.
    assert.ok(tookMs < 100_000, `took ${tookMs} ms: ${served.output()}`);
    assert.match(served.output(), /SIGTERM: closing the seller \(draining for up to 150 s/);
    assert.match(served.output(), /stopped; nothing was left running\./);
    const owed = webhooks.filter((w) => w.operation_id === 'op-drain');
    assert.deepEqual(owed.at(-1)?.status, 'completed', `${JSON.stringify(owed)} ${served.output()}`);
  });

  it('stops at the end of --shutdown-timeout and says what it gave up', async () => {
    const served = await serve(['--shutdown-timeout', '1']);
    children.push(served.child);
    const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
    const buy = await client.call('create_media_buy', {
      ...mediaBuyRequest([packageRequest('olv_pets', 5)]),
      // Port 9 on loopback refuses connections: every delivery attempt fails and is retried.
      push_notification_config: { url: 'http://127.0.0.1:9/webhooks', operation_id: 'op-timeout' },
    });
    await client.close();
    assert.equal(buy.status, 'submitted');
    const stopAsked = Date.now();
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0, served.output());
    const tookMs = Date.now() - stopAsked;
    assert.ok(tookMs >= 1_000, `took ${tookMs} ms: the grace was not given`);
    assert.ok(tookMs < 30_000, `took ${tookMs} ms: ${served.output()}`);
    assert.match(served.output(), /stopped; .*not delivered/);
  });

  it('exits at once on a second signal during the drain', async () => {
    const served = await serve(['--shutdown-timeout', '120']);
    children.push(served.child);
    const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
    await client.call('create_media_buy', {
      ...mediaBuyRequest([packageRequest('olv_pets', 5)]),
      push_notification_config: { url: 'http://127.0.0.1:9/webhooks', operation_id: 'op-twice' },
    });
    await client.close();
    served.child.kill('SIGTERM');
    for (let i = 0; i < 2400 && !/draining for up to/.test(served.output()); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.match(served.output(), /draining for up to 120 s/);
    const secondAsked = Date.now();
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 130, served.output());
    assert.ok(Date.now() - secondAsked < 30_000, served.output());
    assert.match(served.output(), /interrupted again: exiting without waiting/);
  });

  it('refuses a --shutdown-timeout that is not whole seconds', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '0', '--shutdown-timeout', '1.5'], io), 2);
    assert.match(io.err(), /--shutdown-timeout takes whole seconds from 0 to 3600, not '1\.5'/);
  });
});
