// A buyer's webhook receiver that does not answer must not hold an async task back: the task's
// progress webhooks go out in order behind the work, and the task completes on its own time
// (get_task_status says so) while the deliveries wait. Seen in the sales_guaranteed storyboard:
// a buy whose webhook pointed at an unreachable host stayed `working` past the runner's 30 s.
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

describe('an async task behind a webhook receiver that never answers', () => {
  let seller: ReferenceSeller;
  const sent: string[] = [];
  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      // Every delivery takes 4 s (a receiver slow to answer); the task completes long before.
      sendWebhook: (_config, payload) => {
        sent.push(String(payload.status));
        return new Promise<void>((resolve) => setTimeout(resolve, 4_000));
      },
    });
  });
  after(async () => {
    await seller.close();
  });

  it('completes on time, its webhooks still sent in order', async () => {
    const client = new AdcpClient({ url: seller.mcpUrl, protocol: 'mcp', retry: false });
    try {
      const submitted = await client.call('create_media_buy', {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 100)]),
        idempotency_key: randomUUID(),
        push_notification_config: { url: 'https://buyer.example/hooks', operation_id: 'op-slow' },
      });
      assert.equal(submitted.status, 'submitted', JSON.stringify(submitted));
      const taskId = (submitted.data as { task_id: string }).task_id;
      let status = 'submitted';
      for (let i = 0; i < 25 && status !== 'completed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const polled = await client.call('get_task_status', { task_id: taskId });
        status = String((polled.data as { status?: string }).status);
      }
      assert.equal(status, 'completed');
      assert.deepEqual(sent, ['working'], 'the completed webhook waits behind the working one');
    } finally {
      await client.close();
    }
  });
});
