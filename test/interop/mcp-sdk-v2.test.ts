import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';
import { rawModernDispatch } from './helpers/raw-modern-dispatch.js';
import { spawnServe, type ServeProcess } from './helpers/spawn-serve.js';

type Mode = 'legacy' | 'auto' | { pin: string };

async function connect(url: string, mode: Mode): Promise<Client> {
  const client = new Client({ name: 'interop', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('the official SDK v2 client against adcp serve (a real process)', () => {
  let seller: ServeProcess;
  before(async () => {
    seller = await spawnServe();
  });
  after(() => seller.stop());

  const cases: { mode: Mode; era: 'legacy' | 'modern' }[] = [
    { mode: 'legacy', era: 'legacy' },
    { mode: 'auto', era: 'modern' },
    { mode: { pin: '2026-07-28' }, era: 'modern' },
  ];
  for (const { mode, era } of cases) {
    it(`connects in ${JSON.stringify(mode)} mode on the ${era} era, lists the tools and calls get_products`, async () => {
      const client = await connect(seller.mcp, mode);
      try {
        assert.equal(client.getProtocolEra(), era);
        const capabilities = client.getServerCapabilities();
        if (era === 'modern') assert.deepEqual(capabilities?.extensions, { 'io.modelcontextprotocol/tasks': {} });
        else assert.ok(capabilities?.tasks !== undefined, 'the 2025 era advertises experimental Tasks');
        const { tools } = await client.listTools();
        const buy = tools.find((tool) => tool.name === 'create_media_buy');
        assert.ok(buy !== undefined);
        assert.equal(buy.execution === undefined, era === 'modern', 'execution.taskSupport only on the 2025 era');
        const result = await client.callTool({
          name: 'get_products',
          arguments: { buying_mode: 'brief', brief: 'pets' },
        });
        const body = result.structuredContent as { status?: string; products?: unknown[] };
        assert.equal(body.status, 'completed');
        assert.ok(Array.isArray(body.products) && body.products.length > 0);
      } finally {
        await client.close();
      }
    });
  }

  it('answers server/discover with the modern revision and the Tasks extension', async () => {
    const client = await connect(seller.mcp, { pin: '2026-07-28' });
    try {
      const discovered = client.getDiscoverResult?.();
      assert.deepEqual(discovered?.supportedVersions, ['2026-07-28']);
    } finally {
      await client.close();
    }
  });
});

describe('the official ext-tasks requester against a task-capable tool', () => {
  let server: ListeningAdcpServer;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  before(async () => {
    server = await createAdcpServer({
      validateRequests: false,
      taskAfterMs: 0,
      store: new MemoryTaskStore({ policy: { pollIntervalMs: 50 } }),
      tools: [
        {
          name: 'create_media_buy',
          description: 'A media buy that waits for approval.',
          handler: async (_args, context) => {
            await context.working('Awaiting approval');
            await held;
            return { media_buy_id: 'mb_ext', packages: [] };
          },
        },
      ],
    }).listen();
  });
  after(() => server.close());

  it('gets a task for create_media_buy, sees it working, and settles with the AdCP result', async () => {
    const client = await connect(server.mcpUrl, { pin: '2026-07-28' });
    const session = createTaskSessionFromClient(client, {
      endpointId: 'adcp-interop',
      rawDispatch: rawModernDispatch(server.mcpUrl),
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo: { name: 'interop', version: '1.0.0' },
        clientCapabilities: {},
      },
    });
    try {
      const execution = await session.callTool('create_media_buy', { idempotency_key: 'ext-tasks-interop-0001' });
      assert.equal(execution.kind, 'task');
      setTimeout(release, 300).unref();
      const { outcome, lastTask } = await execution.settle();
      assert.equal(outcome.status, 'completed', outcome.status === 'failed' ? outcome.error.message : '');
      assert.equal(lastTask?.statusMessage, 'Awaiting approval', 'progress shows as the task status message');
      const result = resultFromTaskOutcome(outcome) as {
        structuredContent?: { media_buy_id?: string; status?: string };
      };
      assert.equal(result.structuredContent?.media_buy_id, 'mb_ext');
      assert.equal(result.structuredContent?.status, 'completed');
    } finally {
      await session.close();
      await client.close();
    }
  });
});
