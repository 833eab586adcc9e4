// `adcp call --validate`: arguments that fail the request schema are refused before anything is
// sent (exit 2, issues with pointers); an answer that fails its response schema is printed and
// exits 1 with the issues; a valid exchange exits 0. Against a real createAdcpServer over MCP.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { startMcpTestServer } from '../mcp/helpers/mcp-test-server.js';

describe('adcp call --validate', () => {
  let server: ListeningAdcpServer;
  const calls: string[] = [];
  before(async () => {
    server = await createAdcpServer({
      validateResponses: 'off',
      tools: [
        {
          name: 'get_products',
          description: 'Products; "broken" in the brief answers a list that is not an array.',
          handler: (args) => {
            calls.push(String(args['brief']));
            return args['brief'] === 'broken'
              ? { products: 'none', cache_scope: 'public' }
              : { products: [], cache_scope: 'public' };
          },
        },
      ],
    }).listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => server.close());

  it('refuses arguments that fail the request schema before sending: exit 2, the pointer named', async () => {
    const io = recordingIo();
    const code = await main(
      ['call', server.mcpUrl, 'get_products', '{"buying_mode":"retail","brief":"nope"}', '--validate'],
      io,
    );
    assert.equal(code, 2, io.err());
    assert.match(
      io.err(),
      /do not match the AdCP 3\.1 request schema of get_products; nothing was sent \[invalid_request\]/,
    );
    assert.match(io.err(), /\/buying_mode {2}enum: /);
    assert.equal(io.out(), '');
    assert.deepEqual(calls, [], 'the tool never ran');
  });

  it('prints --json issues for a refused request', async () => {
    const io = recordingIo();
    const code = await main(
      ['call', server.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":5}', '--validate', '--json'],
      io,
    );
    assert.equal(code, 2);
    const doc = JSON.parse(io.out()) as { error: { code: string; issues: { pointer: string }[] } };
    assert.equal(doc.error.code, 'invalid_request');
    assert.ok(doc.error.issues.some((i) => i.pointer === '/brief'));
    assert.deepEqual(calls, []);
  });

  it('prints an answer that fails its response schema, then the issues: exit 1', async () => {
    const io = recordingIo();
    const code = await main(
      ['call', server.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"broken"}', '--validate'],
      io,
    );
    assert.equal(code, 1, io.err());
    assert.match(io.out(), /"products": "none"/, 'the data is kept');
    assert.match(
      io.err(),
      /the answer does not match the AdCP 3\.1 schema .*get-products-response\.json \[invalid_response\]/,
    );
    assert.match(io.err(), /\/products {2}type: /);
    const json = recordingIo();
    assert.equal(
      await main(
        ['call', server.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"broken"}', '--validate', '--json'],
        json,
      ),
      1,
    );
    const doc = JSON.parse(json.out()) as { data: unknown; validation: { ok: boolean; release: string } };
    assert.equal((doc.data as { products: unknown }).products, 'none');
    assert.equal(doc.validation.ok, false);
    assert.equal(doc.validation.release, '3.1');
  });

  it('exits 0 when both sides match, and without --validate the broken answer is not checked', async () => {
    const io = recordingIo();
    assert.equal(
      await main(['call', server.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"fine"}', '--validate'], io),
      0,
      io.err(),
    );
    const plain = recordingIo();
    assert.equal(
      await main(['call', server.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"broken"}'], plain),
      0,
    );
  });

  it("checks a 3.0 seller's answer against 3.0, the release negotiated", async () => {
    // Capabilities list only major_versions (a 3.0 seller); the answer has no cache_scope, which 3.1 requires.
    const seller = await startMcpTestServer({
      mode: 'json',
      tools: [
        {
          name: 'get_adcp_capabilities',
          handler: () => ({ content: [], structuredContent: { adcp: { major_versions: [3] } } }),
        },
        { name: 'get_products', handler: () => ({ content: [], structuredContent: { products: [] } }) },
      ],
    });
    try {
      const io = recordingIo();
      const code = await main(
        ['call', seller.url, 'get_products', '{"buying_mode":"brief","brief":"x"}', '--validate', '--json'],
        io,
      );
      assert.equal(code, 0, io.err() + io.out());
      const doc = JSON.parse(io.out()) as { validation: { ok: boolean; release: string } };
      assert.deepEqual([doc.validation.ok, doc.validation.release], [true, '3.0']);
    } finally {
      await seller.close();
    }
  });
});
