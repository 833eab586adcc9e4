import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readServerCard, adcpCardMeta, MAX_SERVER_CARD_BYTES } from '../../src/mcp/read-server-card.js';
import { withMcpServer } from './helpers/mcp-test-server.js';

const card = {
  name: 'io.adcontextprotocol/media-buy-agent',
  version: '1.0.0',
  _meta: { 'adcontextprotocol.org': { adcp_version: '2.6.0', protocols_supported: ['media_buy'] } },
};

describe('readServerCard', () => {
  it('reads /.well-known/mcp.json and its adcontextprotocol.org block', async () => {
    await withMcpServer(
      { tools: [], card: { path: '/.well-known/mcp.json', body: JSON.stringify(card) } },
      async (server) => {
        const info = await readServerCard(server.url);
        assert.equal(info.url, `http://127.0.0.1:${server.port}/.well-known/mcp.json`);
        assert.deepEqual(adcpCardMeta(info.card), { adcp_version: '2.6.0', protocols_supported: ['media_buy'] });
      },
    );
  });

  it('falls back to /.well-known/server.json', async () => {
    await withMcpServer(
      { tools: [], card: { path: '/.well-known/server.json', body: JSON.stringify(card) } },
      async (server) => {
        const info = await readServerCard(server.url);
        assert.equal(info.url, `http://127.0.0.1:${server.port}/.well-known/server.json`);
        assert.equal(info.card?.['name'], card.name);
        assert.equal(info.problem, undefined);
      },
    );
  });

  it('returns an empty answer when there is no card', async () => {
    await withMcpServer({ tools: [] }, async (server) => {
      assert.deepEqual(await readServerCard(server.url), {});
    });
  });

  it('reports a malformed card instead of throwing', async () => {
    await withMcpServer({ tools: [], card: { path: '/.well-known/mcp.json', body: '{"name": ' } }, async (server) => {
      const info = await readServerCard(server.url);
      assert.match(info.problem ?? '', /not valid JSON/);
      assert.equal(info.card, undefined);
    });
  });

  it('reports a card with duplicate keys', async () => {
    await withMcpServer(
      { tools: [], card: { path: '/.well-known/mcp.json', body: '{"name":"a","name":"b"}' } },
      async (server) => {
        assert.match((await readServerCard(server.url)).problem ?? '', /duplicate_key/);
      },
    );
  });

  it('reports a card that is not an object', async () => {
    await withMcpServer({ tools: [], card: { path: '/.well-known/mcp.json', body: '[1,2]' } }, async (server) => {
      assert.match((await readServerCard(server.url)).problem ?? '', /not a JSON object/);
    });
  });

  it('reports an oversized card', async () => {
    const body = JSON.stringify({ name: 'x'.repeat(MAX_SERVER_CARD_BYTES + 10) });
    await withMcpServer({ tools: [], card: { path: '/.well-known/mcp.json', body } }, async (server) => {
      assert.match((await readServerCard(server.url)).problem ?? '', /over 262144 bytes/);
    });
  });

  it('reports a server error on the card path', async () => {
    await withMcpServer(
      { tools: [], card: { path: '/.well-known/mcp.json', body: 'oops', status: 500 } },
      async (server) => {
        assert.match((await readServerCard(server.url)).problem ?? '', /HTTP 500/);
      },
    );
  });
});
