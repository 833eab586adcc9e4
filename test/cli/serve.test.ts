import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { AdcpClient } from '../../src/client/index.js';
import { recordingIo } from './fake-io.js';

describe('adcp serve', () => {
  it('serves the reference seller until stopped, then exits 0', async () => {
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    const exit = main(['serve', '--port', '0', '--json'], io);
    let endpoints: { mcp?: string } = {};
    for (let i = 0; i < 200 && endpoints.mcp === undefined; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (io.out().includes('\n')) endpoints = JSON.parse(io.out()) as { mcp?: string };
    }
    try {
      assert.match(endpoints.mcp ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new AdcpClient({ url: endpoints.mcp ?? '', protocol: 'mcp' });
      const result = await client.call('get_products', { brief: 'pets' });
      await client.close();
      assert.equal(result.status, 'completed');
    } finally {
      controller.abort();
    }
    assert.equal(await exit, 0);
  });

  it('refuses --db together with --store-url', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--db', 'x.db', '--store-url', 'postgres://127.0.0.1/x'], io), 2);
    assert.match(io.err(), /either --db/);
  });

  it('refuses a port out of range', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '99999'], io), 2);
  });
});
