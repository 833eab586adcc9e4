import { isA2AAddress } from '../../src/client/create-transport.js';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { startMcpTestServer, withMcpServer, type TestServer, type TestTool } from '../mcp/helpers/mcp-test-server.js';

const tools: TestTool[] = [
  {
    name: 'get_adcp_capabilities',
    taskSupport: 'forbidden',
    handler: () => ({
      content: [],
      structuredContent: { adcp: { supported_versions: ['3.1'] }, supported_protocols: ['media_buy'] },
    }),
  },
  { name: 'create_media_buy', taskSupport: 'optional', handler: () => ({ content: [], structuredContent: {} }) },
];

const mcpClient = (server: TestServer) => new AdcpClient({ url: server.url, protocol: 'mcp' });

const card = JSON.stringify({
  name: 'io.adcontextprotocol/media-buy-agent',
  _meta: { 'adcontextprotocol.org': { adcp_version: '2.6.0', protocols_supported: ['media_buy'] } },
});

describe('AdcpClient.discover over MCP', () => {
  let server: TestServer;
  let client: AdcpClient;
  before(async () => {
    server = await startMcpTestServer({ tools, tasks: true, card: { path: '/.well-known/server.json', body: card } });
    client = mcpClient(server);
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('returns the server card with its adcontextprotocol.org block', async () => {
    const found = await client.discover();
    assert.equal(found.protocol, 'mcp');
    assert.equal(found.card.url, `http://127.0.0.1:${server.port}/.well-known/server.json`);
    assert.deepEqual(found.adcpMeta, { adcp_version: '2.6.0', protocols_supported: ['media_buy'] });
  });

  it('says the agent speaks the 2025 era, with the capabilities its initialize answer declared', async () => {
    const found = await client.discover();
    assert.equal(found.mcp?.era, 'legacy');
    assert.equal(found.mcp?.wire, 'streamable-http');
    assert.match(found.mcp?.protocolVersion ?? '', /^2025-/);
    assert.ok(found.mcp?.capabilities.includes('tools'));
    assert.ok(found.mcp?.capabilities.includes('tasks'), 'experimental MCP Tasks are a 2025 capability');
    assert.deepEqual(found.mcp?.extensions, []);
    assert.equal(found.mcp?.supportedVersions, undefined);
  });

  it('returns the get_adcp_capabilities answer', async () => {
    const found = await client.discover();
    assert.equal(found.capabilities?.status, 'completed');
    assert.deepEqual(found.capabilities?.data?.['supported_protocols'], ['media_buy']);
  });

  it('lists the tools with their taskSupport', async () => {
    const found = await client.discover();
    assert.deepEqual(
      found.tools?.map((t) => [t.name, t.taskSupport]),
      [
        ['get_adcp_capabilities', 'forbidden'],
        ['create_media_buy', 'optional'],
      ],
    );
  });

  it('reports a missing card as no card, not a problem', async () => {
    await withMcpServer({ tools }, mcpClient, async (other) => {
      const found = await other.discover();
      assert.deepEqual(found.card, {});
      assert.equal(found.capabilities?.status, 'completed');
    });
  });

  it('reports a malformed card and still returns the rest', async () => {
    await withMcpServer({ tools, card: { path: '/.well-known/mcp.json', body: '{oops' } }, mcpClient, async (other) => {
      const found = await other.discover();
      assert.match(found.card.problem ?? '', /not valid JSON/);
      assert.equal(found.tools?.length, 2);
    });
  });
});

describe('AdcpClient protocol auto', () => {
  it('speaks MCP to an agent that has no A2A agent card', async () => {
    const open = (server: TestServer) => new AdcpClient({ url: server.url, protocol: 'auto' });
    await withMcpServer({ tools }, open, async (client) => {
      const result = await client.call('get_adcp_capabilities', {});
      assert.equal(result.protocol, 'mcp');
      assert.equal(result.status, 'completed');
    });
  });
});

describe('AdcpClient over A2A', () => {
  it('picks A2A with protocol auto when the URL serves an agent card', async () => {
    const { startServer } = await import('../a2a/sdk-servers.js');
    const seen: Record<string, unknown>[] = [];
    const a2a = await startServer('v1', (_skill, input) => {
      seen.push(input);
      return [
        { artifact: { id: 'result', parts: [{ data: { status: 'completed', products: [{ product_id: 'a1' }] } }] } },
        { state: 'completed' as const },
      ];
    });
    const client = new AdcpClient({ url: a2a.base, protocol: 'auto' });
    try {
      const result = await client.call<string>('create_media_buy', {}, { contextId: 'ctx-7' });
      assert.equal(result.protocol, 'a2a');
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], [{ product_id: 'a1' }]);
      assert.equal(typeof seen[0]?.['idempotency_key'], 'string');
    } finally {
      await client.close();
      await a2a.close();
    }
  });
});

describe('AdcpClient protocol auto on a seller serving both protocols on one host', () => {
  it('speaks MCP at /mcp and A2A at /a2a and at the bare origin', async () => {
    const { startReferenceSeller } = await import('../../src/seller/start-reference-seller.js');
    const seller = await startReferenceSeller({ port: 0, host: '127.0.0.1' });
    const protocolAt = async (url: string) => {
      const client = new AdcpClient({ url, protocol: 'auto' });
      try {
        const result = await client.call('get_adcp_capabilities', {});
        assert.equal(result.status, 'completed');
        return result.protocol;
      } finally {
        await client.close();
      }
    };
    try {
      assert.equal(await protocolAt(seller.mcpUrl), 'mcp');
      assert.equal(await protocolAt(seller.a2aUrl), 'a2a');
      assert.equal(await protocolAt(seller.url), 'a2a');
    } finally {
      await seller.close();
    }
  });
});

describe('isA2AAddress', () => {
  const card = 'https://seller.example/.well-known/agent-card.json';
  const interfaces = ['https://seller.example/a2a'];
  it('is true for the card URL, an interface URL (trailing slash ignored) and a URL the card sits under', () => {
    assert.equal(isA2AAddress(card, card, interfaces), true);
    assert.equal(isA2AAddress('https://seller.example/a2a/', card, interfaces), true);
    assert.equal(isA2AAddress('https://seller.example', card, interfaces), true);
  });
  it('is false for another path on the same host', () => {
    assert.equal(isA2AAddress('https://seller.example/mcp', card, interfaces), false);
  });
});

describe("AdcpClient.discover: the MCP era and the server's extensions on both eras", () => {
  let server: ListeningAdcpServer;
  before(async () => {
    server = await createAdcpServer({
      validateRequests: false,
      name: 'era-seller',
      tools: [{ name: 'get_products', description: 'Products', handler: () => ({ products: [] }) }],
    }).listen();
  });
  after(() => server.close());

  for (const mcpEra of ['auto', 'modern', 'legacy'] as const) {
    it(`reports ${mcpEra === 'legacy' ? 'the 2025 era' : 'MCP 2026-07-28'} with mcpEra '${mcpEra}'`, async () => {
      const client = new AdcpClient({ url: server.mcpUrl, protocol: 'mcp', mcpEra });
      try {
        const { mcp, mcpProblem } = await client.discover();
        assert.equal(mcpProblem, undefined);
        assert.ok(mcp !== undefined);
        assert.equal(mcp.server?.name, 'era-seller');
        assert.ok(mcp.capabilities.includes('tools'));
        if (mcpEra === 'legacy') {
          assert.equal(mcp.era, 'legacy');
          assert.ok(mcp.capabilities.includes('tasks'));
          assert.deepEqual(mcp.extensions, []);
        } else {
          assert.equal(mcp.era, 'modern');
          assert.equal(mcp.protocolVersion, '2026-07-28');
          assert.deepEqual(mcp.supportedVersions, ['2026-07-28']);
          assert.deepEqual(mcp.extensions, ['io.modelcontextprotocol/tasks']);
          assert.ok(!mcp.capabilities.includes('extensions'), 'extensions are listed on their own');
        }
      } finally {
        await client.close();
      }
    });
  }

  it('says nothing of MCP over A2A', async () => {
    const client = new AdcpClient({ url: server.a2aUrl, protocol: 'a2a' });
    try {
      const found = await client.discover();
      assert.equal(found.mcp, undefined);
      assert.equal(found.mcpProblem, undefined);
    } finally {
      await client.close();
    }
  });
});
