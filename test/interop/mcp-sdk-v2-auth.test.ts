// auth.tokens on the MCP 2026-07-28 era: the official SDK v2 client, pinned to the modern
// revision, reaches discovery without a token and a protected tool only with one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

const TOKEN = `acme_${randomBytes(16).toString('hex')}`;

describe('auth.tokens with the SDK v2 client on the 2026-07-28 era', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({ auth: { tokens: { [TOKEN]: 'acme' } } });
  });
  after(async () => seller.close());

  const connect = async (token?: string) => {
    const client = new Client(
      { name: 'auth-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl), { requestInit: { headers } }));
    assert.equal(client.getProtocolEra(), 'modern');
    return client;
  };

  it('lists tools and calls get_products anonymously, refuses list_creatives without the token', async () => {
    const client = await connect();
    try {
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'list_creatives'));
      const products = await client.callTool({
        name: 'get_products',
        arguments: { buying_mode: 'brief', brief: 'pets' },
      });
      assert.equal((products.structuredContent as { status?: string }).status, 'completed');
      await assert.rejects(
        client.callTool({ name: 'list_creatives', arguments: {} }),
        /401|AUTH_MISSING|Authentication required/,
      );
    } finally {
      await client.close();
    }
  });

  it('calls list_creatives with the token', async () => {
    const client = await connect(TOKEN);
    try {
      const result = await client.callTool({ name: 'list_creatives', arguments: {} });
      assert.equal((result.structuredContent as { status?: string }).status, 'completed', JSON.stringify(result));
    } finally {
      await client.close();
    }
  });
});
