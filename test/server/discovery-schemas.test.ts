// test-timeout-ms: 600000
// tools/list of createAdcpServer, read by the official MCP SDK client: every AdCP tool carries a
// host-compatible inputSchema (an object root without combinators, self-contained) and, with
// outputSchemas, an outputSchema, though the reference seller writes no schema; the SDK client's callTool, which
// checks structuredContent against the outputSchema, accepts the seller's answers for 3.0 and
// 3.1 callers: completed, submitted, and an error.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { startReferenceSeller } from '../../src/seller/start-reference-seller.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { loadSchemaBundle } from '../../src/schemas/schema-bundle.js';
import { specInput, toolInputSchema } from '../../src/schemas/discovery-schemas.js';
import { mediaBuyRequest, packageRequest, productsRequest } from '../../src/seller/sample-requests.js';

type Json = Record<string, unknown>;

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/** Every `#/...` pointer names a location inside the document. */
function resolves(doc: Json, ref: string): boolean {
  let node: unknown = doc;
  for (const raw of ref
    .slice(2)
    .split('/')
    .filter((t) => t !== '')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(token in node)) return false;
    node = (node as Json)[token];
  }
  return true;
}

describe('tools/list discovery schemas (official MCP SDK client)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-discovery-'));
  let seller: ListeningAdcpServer;
  let client: Client;
  let tools: Tool[] = [];

  before(async () => {
    seller = await startReferenceSeller({
      dbPath: join(dir, 'seller.db'),
      validateResponses: 'strict',
      outputSchemas: true,
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      sendWebhook: async () => undefined,
    });
    client = new Client({ name: 'discovery-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
    tools = (await client.listTools()).tools;
    // listTools compiles every outputSchema in the SDK (seconds on a loaded machine); the server's
    // keep-alive timeout may have closed the pooled socket meanwhile, so the next POST can meet a
    // reset. One ping takes that socket out of the pool.
    await client.ping().catch(() => undefined);
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await seller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes an inputSchema strict hosts accept and an outputSchema for every AdCP tool', () => {
    const manifest = loadSchemaBundle('3.1');
    const adcp = tools.filter((t) => manifest.tool(t.name) !== undefined);
    assert.ok(adcp.length >= 6, `AdCP tools listed: ${adcp.map((t) => t.name).join(', ')}`);
    for (const tool of adcp) {
      const input = tool.inputSchema as Json;
      assert.equal(input.type, 'object', tool.name);
      for (const k of ['allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'not'])
        assert.equal(k in input, false, `${tool.name} inputSchema root ${k}`);
      assert.ok(Object.keys(input.properties as Json).length > 0, tool.name);
      const output = tool.outputSchema as Json | undefined;
      assert.ok(output !== undefined, `${tool.name} outputSchema`);
      assert.equal(output.type, 'object', tool.name);
      for (const doc of [input, output]) {
        for (const ref of refs(doc)) {
          assert.ok(ref.startsWith('#'), `${tool.name}: ${ref} is not local`);
          assert.ok(resolves(doc, ref), `${tool.name}: ${ref} does not resolve`);
        }
      }
    }
    const products = tools.find((t) => t.name === 'get_products')!;
    const input = products.inputSchema as Json;
    assert.ok('buying_mode' in (input.properties as Json), 'flattened root keeps the request properties');
    assert.ok('adcp_version' in (input.properties as Json), 'the version envelope is flattened into the root');
    assert.equal(input.$schema, 'https://json-schema.org/draft/2020-12/schema');
  });

  it('publishes no outputSchema unless asked (SDK clients compile each when listing)', async () => {
    const plain = await startReferenceSeller({ dbPath: join(dir, 'plain.db'), sendWebhook: async () => undefined });
    const other = new Client({ name: 'discovery-test', version: '1.0.0' });
    try {
      await other.connect(new StreamableHTTPClientTransport(new URL(plain.mcpUrl)));
      const listed = (await other.listTools()).tools;
      const products = listed.find((t) => t.name === 'get_products')!;
      assert.equal(products.outputSchema, undefined);
      assert.deepEqual(products.inputSchema, tools.find((t) => t.name === 'get_products')!.inputSchema);
    } finally {
      await other.close().catch(() => undefined);
      await plain.close();
    }
  });

  it('lists the official discovery schema of the served release for every AdCP tool (no hand-written one)', () => {
    const manifest = loadSchemaBundle('3.1');
    for (const tool of tools.filter((t) => manifest.tool(t.name) !== undefined)) {
      assert.deepEqual(tool.inputSchema, toolInputSchema(tool.name, '3.1'), tool.name);
    }
    assert.ok(tools.some((t) => t.name === 'list_creatives') && tools.some((t) => t.name === 'get_media_buys'));
  });

  it('uses the spec-published 3.2 projection where it has the tool', () => {
    const caps = tools.find((t) => t.name === 'get_adcp_capabilities')!;
    assert.deepEqual(caps.inputSchema, specInput('get_adcp_capabilities'));
  });

  it("lets the SDK client's output check accept the seller's answers (3.0 and 3.1, completed, submitted, error)", async () => {
    for (const adcp_version of ['3.0', '3.1']) {
      const products = await client.callTool({
        name: 'get_products',
        arguments: { ...productsRequest('sports'), adcp_version },
      });
      assert.equal((products.structuredContent as Json).status, 'completed');
      const buy = await client.callTool({
        name: 'create_media_buy',
        arguments: {
          ...mediaBuyRequest([packageRequest('ctv_premium_sports', 5000)]),
          idempotency_key: `discovery-${adcp_version}-0000000000000000`,
          adcp_version,
        },
      });
      assert.equal((buy.structuredContent as Json).status, 'submitted');
      const caps = await client.callTool({ name: 'get_adcp_capabilities', arguments: { adcp_version } });
      assert.ok((caps.structuredContent as Json).adcp !== undefined);
      const refused = await client.callTool({
        name: 'get_products',
        arguments: { buying_mode: 'nonsense', adcp_version },
      });
      assert.equal(refused.isError, true);
      assert.equal(((refused.structuredContent as Json).adcp_error as Json).code, 'INVALID_REQUEST');
    }
  });
});
