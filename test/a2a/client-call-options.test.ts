// AdcpClient.call's A2A-only options end to end against the SDK servers of both majors:
// `returnImmediately` (non-blocking send, then waitFor) and `continueTask` (answer an
// input-required task).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/index.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import type { ServerKind } from './sdk-servers.js';
import { useScriptServer } from './server-hooks.js';

const WIRES = [
  ['v1', '1.0'],
  ['v0.3', '0.3'],
] as const satisfies readonly (readonly [ServerKind, '1.0' | '0.3'])[];

for (const [kind, wire] of WIRES) {
  describe(`AdcpClient.call A2A options (${kind} SDK server)`, () => {
    const seller = useScriptServer(kind);
    const send = wire === '1.0' ? 'SendMessage' : 'message/send';
    const newClient = () =>
      new AdcpClient({ url: seller.server.base, protocol: 'a2a', a2aWire: wire, retry: false, timeoutMs: 10_000 });

    it('returns at once with returnImmediately, and waitFor follows the task to completed', async () => {
      const g = seller.gate('ri');
      const client = newClient();
      try {
        const before = seller.server.calls.length;
        // The task cannot end before the gate opens: an answer here was sent while it runs.
        const started = await client.call<string>(
          'create_media_buy',
          { scenario: 'gated', gate: 'ri' },
          { returnImmediately: true },
        );
        assert.ok(started.status === 'submitted' || started.status === 'working', `got ${started.status}`);
        assert.equal(typeof started.transportTaskId, 'string');
        assert.deepEqual(seller.server.calls.slice(before), [send]);
        g.open();
        const done = await client.waitFor(started, { pollIntervalMs: 10, maxPollIntervalMs: 20, timeoutMs: 10_000 });
        assert.equal(done.status, 'completed');
        assert.deepEqual(done.data, { status: 'completed', media_buy_id: 'mb_1' });
        assert.equal(done.transportTaskId, started.transportTaskId);
      } finally {
        await client.close();
      }
    });

    it('records a non-blocking send as an operation, and waitFor advances it to completed', async () => {
      const g = seller.gate('ri-store');
      const operations = new MemoryOperationStore();
      const client = new AdcpClient({
        url: seller.server.base,
        protocol: 'a2a',
        a2aWire: wire,
        retry: false,
        timeoutMs: 10_000,
        operations,
      });
      try {
        const started = await client.call<string>(
          'create_media_buy',
          { scenario: 'gated', gate: 'ri-store' },
          { returnImmediately: true },
        );
        const operationId = client.operationIdOf(started);
        assert.equal(typeof operationId, 'string');
        assert.equal((await operations.get(operationId!))?.status, started.status);
        g.open();
        const done = await client.waitFor(started, { pollIntervalMs: 10, maxPollIntervalMs: 20, timeoutMs: 10_000 });
        assert.equal(done.status, 'completed');
        const record = await operations.get(operationId!);
        assert.equal(record?.status, 'completed');
        assert.equal((record?.result as Record<string, unknown> | undefined)?.['media_buy_id'], 'mb_1');
      } finally {
        await client.close();
      }
    });

    it('sends a non-blocking send instead of a stream when onProgress is given too', async () => {
      const g = seller.gate('ri-progress');
      const client = newClient();
      try {
        const before = seller.server.calls.length;
        const started = await client.call<string>(
          'create_media_buy',
          { scenario: 'gated', gate: 'ri-progress' },
          { returnImmediately: true, onProgress: () => {} },
        );
        assert.ok(started.status === 'submitted' || started.status === 'working', `got ${started.status}`);
        assert.deepEqual(seller.server.calls.slice(before), [send]);
      } finally {
        g.open();
        await client.close();
      }
    });

    it('continues an input-required task with continueTask until it completes', async () => {
      const client = newClient();
      try {
        const asked = await client.call<string>('create_media_buy', { scenario: 'input-required' });
        assert.equal(asked.status, 'input-required');
        const taskId = asked.transportTaskId!;
        assert.equal(typeof taskId, 'string');
        const answered = await client.call<string>(
          'create_media_buy',
          { scenario: 'approved' },
          { continueTask: taskId, contextId: asked.contextId! },
        );
        assert.equal(answered.status, 'completed');
        assert.equal(answered.data?.['media_buy_id'], 'mb_2');
        assert.equal(answered.data?.['task_id_seen'], taskId, 'the agent ran the continuation in the same task');
        assert.equal(answered.transportTaskId, taskId);
        assert.equal(answered.contextId, asked.contextId);
      } finally {
        await client.close();
      }
    });

    it('starts a new task when continueTask is not given', async () => {
      const client = newClient();
      try {
        const asked = await client.call<string>('create_media_buy', { scenario: 'input-required' });
        const fresh = await client.call<string>(
          'create_media_buy',
          { scenario: 'approved' },
          { contextId: asked.contextId! },
        );
        assert.equal(fresh.status, 'completed');
        assert.notEqual(fresh.data?.['task_id_seen'], asked.transportTaskId);
      } finally {
        await client.close();
      }
    });

    it('refuses an empty continueTask before sending', async () => {
      const client = newClient();
      try {
        const before = seller.server.calls.length;
        await assert.rejects(client.call<string>('create_media_buy', {}, { continueTask: '' }), TypeError);
        assert.equal(seller.server.calls.length, before);
      } finally {
        await client.close();
      }
    });
  });
}
