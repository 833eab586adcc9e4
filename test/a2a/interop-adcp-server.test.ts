// The A2A transport against this repository's own AdCP server (src/server), both wires.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { A2ATransport } from '../../src/a2a/index.js';
import { useGatedAdcpServer } from './server-hooks.js';

const MAX = 1024 * 1024;

describe('A2ATransport against createAdcpServer', () => {
  const agent = useGatedAdcpServer({ media_buy_id: 'mb_9' }, [
    {
      name: 'get_products',
      description: 'Products',
      handler: (args) => ({ products: [{ product_id: 'p1' }], brief_seen: args['brief'] ?? null }),
    },
  ]);

  for (const wire of ['1.0', '0.3'] as const) {
    it(`calls a tool over A2A ${wire}`, async () => {
      const t = new A2ATransport({ url: agent.listening.a2aUrl, maxBytes: MAX, a2aWire: wire });
      assert.equal((await t.currentEndpoint({ maxBytes: MAX })).wire, wire);
      const result = await t.callTool('get_products', { brief: 'ctv' }, { maxBytes: MAX });
      assert.equal(result.status, 'completed');
      assert.deepEqual(result.data?.['products'], [{ product_id: 'p1' }]);
      assert.equal(result.data?.['brief_seen'], 'ctv');
    });
  }

  it('follows an AdCP submitted task with the get_task_status skill', async () => {
    const t = new A2ATransport({ url: agent.listening.a2aUrl, maxBytes: MAX });
    const first = await t.callTool(
      'create_media_buy',
      { idempotency_key: 'interop-a2a-0000000000000001' },
      { maxBytes: MAX },
    );
    assert.equal(first.status, 'submitted');
    assert.equal(typeof first.taskId, 'string');
    agent.release();
    let polled = await t.callTool(
      'get_task_status',
      { task_id: first.taskId!, include_result: true },
      { maxBytes: MAX },
    );
    for (let i = 0; i < 200 && polled.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      polled = await t.callTool('get_task_status', { task_id: first.taskId!, include_result: true }, { maxBytes: MAX });
    }
    assert.equal(polled.status, 'completed');
    assert.equal(JSON.stringify(polled.data).includes('mb_9'), true);
  });

  it('lists the server skills', async () => {
    const names = (
      await new A2ATransport({ url: agent.listening.a2aUrl, maxBytes: MAX }).listTools({ maxBytes: MAX })
    ).map((s) => s.name);
    assert.ok(names.includes('get_products') && names.includes('create_media_buy'), names.join(','));
  });
});
