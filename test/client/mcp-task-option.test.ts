import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/index.js';
import { MemoryTaskStore } from '../../src/store/memory-task-store.js';

/** A fetch that keeps the JSON-RPC bodies it sends. */
function recordingFetch(): { fetch: typeof fetch; bodies: { method?: string; params?: Record<string, unknown> }[] } {
  const bodies: { method?: string; params?: Record<string, unknown> }[] = [];
  const recorder: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body) as (typeof bodies)[number]);
    return fetch(input, init);
  };
  return { fetch: recorder, bodies };
}

describe('AdcpClient call(..., { task }) on MCP 2026-07-28 (the server decides, SEP-2663)', () => {
  let server: ListeningAdcpServer;
  let release: (() => void) | undefined;
  before(async () => {
    server = await createAdcpServer({
      validateRequests: false,
      taskAfterMs: 300,
      store: new MemoryTaskStore({ policy: { pollIntervalMs: 20 } }),
      tools: [
        { name: 'get_products', description: 'Quick.', handler: () => ({ products: [] }) },
        {
          name: 'sync_creatives',
          description: 'Waits for the test (bounded: 10 s).',
          handler: async () => {
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 10_000);
              release = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            return { creatives: [] };
          },
        },
      ],
    }).listen();
  });
  after(() => server.close());

  it('sends no task parameter and answers a quick call directly, without a transport task id', async () => {
    const { fetch, bodies } = recordingFetch();
    const client = new AdcpClient({ url: server.mcpUrl, protocol: 'mcp', mcpEra: 'modern', fetch });
    try {
      const result = await client.call('get_products', { buying_mode: 'brief' }, { task: { ttl: 60_000 } });
      assert.equal(result.status, 'completed');
      assert.equal(result.transportTaskId, undefined);
      const call = bodies.find((b) => b.method === 'tools/call');
      assert.ok(call?.params !== undefined);
      assert.equal('task' in call.params, false, 'the 2026 era has no task parameter');
      // The tool list is read once per agent, as on the 2025 era, to refuse a task for a tool that forbids it.
      assert.deepEqual(
        bodies.map((b) => b.method),
        ['tools/list', 'tools/call'],
      );
    } finally {
      await client.close();
    }
  });

  it('returns the task id when the server made the call a task, readable with getTransportTask', async () => {
    const client = new AdcpClient({ url: server.mcpUrl, protocol: 'mcp', mcpEra: 'modern' });
    try {
      const result = await client.call(
        'sync_creatives',
        { idempotency_key: 'task-option-key-00001' },
        { task: {}, onProgress: (event) => (event.taskId !== undefined ? release?.() : undefined) },
      );
      assert.equal(result.status, 'completed');
      assert.equal(typeof result.transportTaskId, 'string');
      const again = await client.getTransportTask(result.transportTaskId ?? '');
      assert.equal(again.status, 'completed');
      assert.equal(again.transportTaskId, result.transportTaskId);
    } finally {
      await client.close();
    }
  });

  for (const mcpEra of ['modern', 'legacy'] as const) {
    it(`refuses the same misuse the same way on the ${mcpEra} era, before sending anything`, async () => {
      const { fetch, bodies } = recordingFetch();
      const client = new AdcpClient({ url: server.mcpUrl, protocol: 'mcp', mcpEra, fetch });
      try {
        for (const task of [{ ttl: -1 }, { ttl: 1.5 }, { ttl: Number.NaN }, null]) {
          await assert.rejects(
            client.call('get_products', {}, { task: task as { ttl?: number } }),
            (error: unknown) => error instanceof RangeError && /task must be \{\} or \{ ttl \}/.test(error.message),
          );
        }
        assert.deepEqual(bodies, []);
        // get_adcp_capabilities never takes a task (the tool table): a TypeError on both eras.
        await assert.rejects(client.call('get_adcp_capabilities', {}, { task: {} }), TypeError);
      } finally {
        await client.close();
      }
    });
  }
});
