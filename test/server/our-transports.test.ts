import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMcpTransport } from '../../src/mcp/index.js';
import { createA2ATransport } from '../../src/a2a/index.js';
import type { AdcpTransport } from '../../src/transport/transport.js';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { testTools } from './fixtures.js';

const MAX = 1024 * 1024;

describe("the library's own transports against createAdcpServer", () => {
  const server = createAdcpServer({ validateRequests: false, tools: testTools() });
  let listening: ListeningAdcpServer;
  const transports: AdcpTransport[] = [];
  const open = (kind: 'mcp' | 'a2a' | 'a2a-0.3'): AdcpTransport => {
    const transport =
      kind === 'mcp'
        ? createMcpTransport({ url: listening.mcpUrl, maxBytes: MAX })
        : createA2ATransport({ url: listening.url, maxBytes: MAX, a2aWire: kind === 'a2a' ? '1.0' : '0.3' });
    transports.push(transport);
    return transport;
  };

  before(async () => {
    listening = await server.listen();
  });
  after(async () => {
    for (const t of transports) await t.close().catch(() => undefined);
    await server.close();
  });

  for (const kind of ['mcp', 'a2a', 'a2a-0.3'] as const) {
    it(`reads a completed get_products answer with the context echoed (${kind})`, async () => {
      const result = await open(kind).callTool(
        'get_products',
        { brief: 'ctv', context: { k: 'v' } },
        { maxBytes: MAX },
      );
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.context, { k: 'v' });
      assert.equal(((result.data?.products as unknown[]) ?? []).length, 1);
    });

    it(`reads an adcp_error as a failed result with its recovery (${kind})`, async () => {
      const result = await open(kind).callTool('fail_rate_limited', {}, { maxBytes: MAX });
      assert.equal(result.status, 'failed');
      if (result.status !== 'failed') return;
      assert.equal(result.error.code, 'RATE_LIMITED');
      assert.equal(result.error.retryDelaySeconds, 3);
    });

    it(`reads a submitted answer with its AdCP task_id (${kind})`, async () => {
      const result = await open(kind).callTool(
        'create_media_buy',
        { idempotency_key: crypto.randomUUID() },
        { maxBytes: MAX },
      );
      assert.equal(result.status, 'submitted');
      assert.equal(typeof result.taskId, 'string');
    });
  }

  it('lists the tools with their task support over MCP', async () => {
    const tools = await open('mcp').listTools({ maxBytes: MAX });
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.taskSupport]));
    assert.equal(byName.get_products, 'optional');
    assert.equal(byName.get_adcp_capabilities, 'forbidden');
  });

  it('reads the MCP server card and the A2A agent card', async () => {
    const mcpCard = await open('mcp').readCard({ maxBytes: MAX });
    const a2aCard = await open('a2a').readCard({ maxBytes: MAX });
    assert.equal(mcpCard.problem, undefined);
    assert.equal(typeof mcpCard.card?._meta, 'object');
    assert.equal(a2aCard.problem, undefined);
    assert.ok(Array.isArray(a2aCard.card?.supportedInterfaces));
  });

  it('runs a task-augmented MCP call to completion (2025 era: the caller asks for the task)', async () => {
    const legacy = createMcpTransport({ url: listening.mcpUrl, maxBytes: MAX, mcpEra: 'legacy' });
    transports.push(legacy);
    const result = await legacy.callTool('get_products', { brief: 'x' }, { maxBytes: MAX, task: { ttl: 60_000 } });
    assert.equal(result.status, 'completed');
    assert.equal(typeof result.transportTaskId, 'string');
  });
});
