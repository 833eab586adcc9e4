// `adcp call https://...` to a port that answers plain HTTP (a local `adcp serve`): the error says
// so and gives the http:// URL, on MCP and A2A, instead of a bare "could not reach".
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { fastSeller } from './seller.js';

describe('https:// to an http port', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
  });
  after(async () => seller.close());

  for (const protocol of ['mcp', 'a2a'] as const) {
    it(`${protocol}: hints at the mismatch with the http:// URL`, async () => {
      const plain = protocol === 'mcp' ? seller.mcpUrl : seller.a2aUrl;
      const io = recordingIo();
      const code = await main(
        ['call', plain.replace(/^http:/, 'https:'), 'get_adcp_capabilities', '--protocol', protocol, '--timeout', '10'],
        io,
      );
      assert.equal(code, 3);
      assert.match(io.err(), /the port answers plain HTTP, not TLS: try http:\/\/127\.0\.0\.1:\d+\//);
    });
  }
});
