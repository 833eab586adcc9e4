// Which schemas AdcpClient checks with, call after call: an answer against the release the agent
// echoes when the client speaks it (else the client's own), and each release's validator looked
// up once per client (the per-call lookup read the environment's search path twice per call).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AdcpClient } from '../../src/client/index.js';
import { startMcpTestServer, type TestServer } from '../mcp/helpers/mcp-test-server.js';

// A valid 3.1 answer (no products); with `echo`, it names the release it says it served.
const answer = (args: Record<string, unknown>) => ({
  content: [],
  structuredContent: {
    status: 'completed',
    products: [],
    cache_scope: 'public',
    ...(typeof args['echo'] === 'string' ? { adcp_version: args['echo'] } : {}),
  },
});

describe('AdcpClient validation: the release an answer is checked against', () => {
  let server: TestServer;
  before(async () => {
    server = await startMcpTestServer({ tools: [{ name: 'get_products', handler: answer }], mode: 'json' });
  });
  after(async () => {
    await server.close();
  });

  it('is the echoed release when the client speaks it, else the release it asked for', async () => {
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', validate: 'response' });
    try {
      const served = async (echo?: string) => {
        const result = await client.call<string>('get_products', echo === undefined ? {} : { echo });
        assert.ok(result.validation !== undefined, 'the answer was checked');
        return [result.validation.release, result.validation.schema];
      };
      assert.deepEqual(await served('3.0'), ['3.0', 'media-buy/get-products-response.json']);
      assert.deepEqual(await served(), ['3.1', 'media-buy/get-products-response.json']);
      assert.deepEqual(await served('3.9'), ['3.1', 'media-buy/get-products-response.json'], 'not one it speaks');
      assert.deepEqual(await served('3.0'), ['3.0', 'media-buy/get-products-response.json']);
    } finally {
      await client.close();
    }
  });

  it('keeps the validator a client looked up for a release, wherever the search path points later', async () => {
    const client = new AdcpClient({ url: server.url, protocol: 'mcp', validate: 'both' });
    const empty = mkdtempSync(path.join(tmpdir(), 'adcp-no-schemas-'));
    const saved = { schemas: process.env['ADCP_SCHEMAS_DIR'], cache: process.env['ADCP_CACHE_DIR'] };
    try {
      assert.equal((await client.call<string>('get_products', { buying_mode: 'brief' })).validation?.ok, true);
      // No release on the search path any more: a new lookup would fail (AdcpSchemaError).
      process.env['ADCP_SCHEMAS_DIR'] = empty;
      process.env['ADCP_CACHE_DIR'] = empty;
      const again = await client.call<string>('get_products', { buying_mode: 'brief' });
      assert.equal(again.validation?.ok, true);
      assert.equal(again.validation?.release, '3.1');
      const fresh = new AdcpClient({ url: server.url, protocol: 'mcp', validate: 'response' });
      try {
        await assert.rejects(fresh.call<string>('get_products', {}), { name: 'AdcpSchemaError' });
      } finally {
        await fresh.close();
      }
    } finally {
      for (const [name, value] of [
        ['ADCP_SCHEMAS_DIR', saved.schemas],
        ['ADCP_CACHE_DIR', saved.cache],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(empty, { recursive: true, force: true });
      await client.close();
    }
  });

  it("checks a 3.0 seller's answers against 3.0: a validating client learns the release first", async () => {
    // A 3.0 seller: capabilities list only major_versions, answers carry no adcp_version and no
    // cache_scope (required from 3.1 on). Checked against 3.1, the answer would fail.
    const seller = await startMcpTestServer({
      mode: 'json',
      tools: [
        {
          name: 'get_adcp_capabilities',
          handler: () => ({
            content: [],
            structuredContent: { adcp: { major_versions: [3] }, supported_protocols: ['media_buy'] },
          }),
        },
        { name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) },
      ],
    });
    const client = new AdcpClient({ url: seller.url, protocol: 'mcp', validate: 'both' });
    try {
      const result = await client.call('get_products', { buying_mode: 'brief', brief: 'coffee' });
      assert.deepEqual(result.validation, {
        ok: true,
        release: '3.0',
        schema: 'media-buy/get-products-response.json',
        issues: [],
      });
      const sent = seller.received.find((m) => (m['params'] as { name?: string } | undefined)?.name === 'get_products');
      assert.ok(sent !== undefined, 'get_products was sent');
      assert.equal((sent['params'] as { arguments: Record<string, unknown> }).arguments['adcp_version'], '3.0');
    } finally {
      await client.close();
      await seller.close();
    }
  });
});
