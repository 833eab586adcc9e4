import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import type { WebhookEvent, WebhookHandler } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { SECRET, hmacRequest, json } from './helpers.js';
import { readVector } from './vectors.js';

interface ExtractionVector {
  id: string;
  format: 'mcp' | 'a2a';
  payload: Record<string, unknown>;
  expected_data: unknown;
}
const extraction = readVector<{ vectors: ExtractionVector[] }>('webhook-payload-extraction.json').vectors;

describe('createWebhookHandler (A2A push payloads)', () => {
  let events: WebhookEvent[];
  let handler: WebhookHandler;
  let operations: MemoryOperationStore;
  beforeEach(async () => {
    events = [];
    operations = new MemoryOperationStore();
    handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      operations,
      format: 'a2a',
      onEvent: (event) => {
        events.push(event);
      },
    });
  });

  for (const vector of extraction.filter((v) => v.format === 'a2a')) {
    it(`${vector.id}: dispatches the A2A payload with the extracted AdCP data`, async () => {
      const response = await handler.fetch(hmacRequest(JSON.stringify(vector.payload)));
      assert.equal(response.status, 200);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.format, 'a2a');
      assert.deepEqual(events[0]?.data, vector.expected_data);
      assert.equal(events[0]?.taskId, vector.payload['id']);
    });
  }

  it('advances the operation registered under the A2A task id', async () => {
    await operations.create({
      operationId: 'task_a2a_1',
      agent: 'https://seller.example/a2a',
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: 0,
    });
    const task = {
      task: {
        id: 'task_a2a_1',
        contextId: 'ctx',
        status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00Z' },
        artifacts: [{ artifactId: 'r', parts: [{ data: { media_buy_id: 'mb_9' } }] }],
      },
    };
    const response = await handler.fetch(hmacRequest(JSON.stringify(task)));
    assert.equal(response.status, 200);
    const record = await operations.get('task_a2a_1');
    assert.equal(record?.status, 'completed');
    assert.deepEqual(record?.result, { media_buy_id: 'mb_9' });
  });

  it('handles a 1.0 statusUpdate envelope', async () => {
    const update = {
      statusUpdate: {
        taskId: 'task_a2a_2',
        contextId: 'c',
        status: {
          state: 'TASK_STATE_WORKING',
          message: { role: 'ROLE_AGENT', parts: [{ text: 'half way' }, { data: { percentage: 50 } }] },
        },
      },
    };
    const response = await handler.fetch(hmacRequest(JSON.stringify(update)));
    assert.equal(response.status, 200);
    assert.equal(events[0]?.status, 'working');
    assert.deepEqual(events[0]?.data, { percentage: 50 });
    assert.equal(events[0]?.message, 'half way');
  });

  it('deduplicates an exact redelivery of an A2A payload', async () => {
    const body = JSON.stringify(extraction.find((v) => v.format === 'a2a')?.payload);
    await handler.fetch(hmacRequest(body));
    const again = await handler.fetch(hmacRequest(body));
    assert.deepEqual(await json(again), { ok: true, result: 'duplicate' });
    assert.equal(events.length, 1);
  });

  it('refuses an A2A Message (no task state) with 400', async () => {
    const response = await handler.fetch(
      hmacRequest(JSON.stringify({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })),
    );
    assert.equal(response.status, 400);
    assert.equal(events.length, 0);
  });

  it('refuses a Task without an id with 400', async () => {
    const response = await handler.fetch(
      hmacRequest(JSON.stringify({ status: { state: 'completed' }, artifacts: [] })),
    );
    assert.equal(response.status, 400);
  });
});

describe('createWebhookHandler (format detection)', () => {
  it('routes MCP and A2A payloads by shape when no format is configured', async () => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      onEvent: (event) => {
        events.push(event);
      },
    });
    for (const vector of extraction.filter((v) => v.payload['idempotency_key'] !== undefined || v.format === 'a2a')) {
      const response = await handler.fetch(hmacRequest(JSON.stringify(vector.payload)));
      assert.equal(response.status, 200, vector.id);
    }
    assert.deepEqual(
      events.map((e) => e.format),
      extraction.filter((v) => v.payload['idempotency_key'] !== undefined || v.format === 'a2a').map((v) => v.format),
    );
  });
});
