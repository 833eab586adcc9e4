// `adcp discover` shows the AdCP release a client speaks with the agent (highest in common), in
// the human report and in --json, against real servers advertising different releases.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { fastSeller } from './seller.js';

describe('adcp discover: the negotiated release', () => {
  let seller: ListeningAdcpServer;
  let only30: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
    only30 = await createAdcpServer({
      adcpVersions: ['3.0'],
      tools: [{ name: 'get_products', description: 'Products.', handler: () => ({ products: [] }) }],
    }).listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await seller.close();
    await only30.close();
  });

  it('shows 3.1 for the reference seller (3.0 and 3.1), in the report and in --json', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl], io), 0, io.err());
    assert.match(io.out(), /^AdCP release 3\.1 \(negotiated; agent: 3\.0, 3\.1; this client: 3\.0, 3\.1\)$/m);
    const json = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl, '--json'], json), 0);
    const view = JSON.parse(json.out()) as { adcp: { release: string; theirs: string[]; ours: string[] } };
    assert.deepEqual(view.adcp, { release: '3.1', ours: ['3.0', '3.1'], theirs: ['3.0', '3.1'] });
  });

  it('shows 3.0 for an agent that speaks only 3.0', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', only30.mcpUrl, '--protocol', 'mcp'], io), 0, io.err());
    assert.match(io.out(), /^AdCP release 3\.0 \(negotiated; agent: 3\.0; this client: 3\.0, 3\.1\)$/m);
    const json = recordingIo();
    assert.equal(await main(['discover', only30.a2aUrl, '--protocol', 'a2a', '--json'], json), 0, json.err());
    assert.equal((JSON.parse(json.out()) as { adcp: { release: string } }).adcp.release, '3.0');
  });
});
