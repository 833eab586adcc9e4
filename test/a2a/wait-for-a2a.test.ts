// AdcpClient.waitFor over A2A: by the A2A task (GetTask / tasks/get) and by the AdCP task_id
// (the get_task_status skill).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient, createInMemoryTransport } from '../../src/client/index.js';
import { A2ATransport } from '../../src/a2a/index.js';
import type { ServerKind } from './sdk-servers.js';
import { useGatedAdcpServer, useScriptServer } from './server-hooks.js';

const MAX = 1024 * 1024;

for (const [kind, wire] of [
  ['v1', '1.0'],
  ['v0.3', '0.3'],
] as const satisfies readonly (readonly [ServerKind, '1.0' | '0.3'])[]) {
  describe(`AdcpClient.waitFor by A2A task id (${kind} SDK server)`, () => {
    const seller = useScriptServer(kind);

    it('polls the A2A task until it completes', async () => {
      const server = seller.server;
      const g = seller.gate('w');
      const transport = new A2ATransport({ url: server.base, maxBytes: MAX });
      const started = await transport.callTool(
        'create_media_buy',
        { scenario: 'gated', gate: 'w' },
        { maxBytes: MAX, returnImmediately: true },
      );
      assert.equal(started.taskId, undefined);
      assert.equal(typeof started.transportTaskId, 'string');
      const client = new AdcpClient({ url: server.base, protocol: 'a2a', a2aWire: wire, retry: false });
      try {
        const before = server.calls.length;
        setTimeout(() => g.open(), 30);
        const done = await client.waitFor(started, { pollIntervalMs: 10, maxPollIntervalMs: 20, timeoutMs: 10_000 });
        assert.equal(done.status, 'completed');
        assert.deepEqual(done.data, { status: 'completed', media_buy_id: 'mb_1' });
        assert.equal(done.transportTaskId, started.transportTaskId);
        assert.ok(server.calls.slice(before).every((m) => m === (wire === '1.0' ? 'GetTask' : 'tasks/get')));
      } finally {
        await client.close();
      }
    });
  });
}

describe('AdcpClient.waitFor by AdCP task_id over A2A (createAdcpServer, in memory)', () => {
  const agent = useGatedAdcpServer({ media_buy_id: 'mb_42', packages: [] }, [], { listen: false });

  for (const wire of ['1.0', '0.3'] as const) {
    it(`follows a submitted media buy with get_task_status over A2A ${wire}`, async () => {
      const transport = createInMemoryTransport(agent.server, { protocol: 'a2a', a2aWire: wire });
      const client = new AdcpClient({ transport, retry: false });
      try {
        const submitted = await client.call<string>('create_media_buy', { total_budget: 1000 });
        assert.equal(submitted.status, 'submitted');
        assert.equal(typeof submitted.taskId, 'string');
        setTimeout(agent.release, 30);
        const done = await client.waitFor(submitted, { pollIntervalMs: 10, maxPollIntervalMs: 20, timeoutMs: 10_000 });
        assert.equal(done.status, 'completed');
        assert.equal(done.data?.['media_buy_id'], 'mb_42');
        // The ids are the call's own A2A task and context, not those of the last get_task_status poll.
        assert.equal(done.transportTaskId, submitted.transportTaskId);
        assert.equal(done.contextId, submitted.contextId);
      } finally {
        await client.close();
      }
    });
  }
});
