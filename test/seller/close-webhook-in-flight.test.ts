// close() while an async task's webhook is on its way to a receiver that never answers (the
// library's own emitter, a real receiver on loopback): the delivery is aborted and counted, and
// close() returns at once, whether the task is still working or already completed with its
// final webhook queued behind the progress one (progress webhooks go out on a chain behind the
// work, src/server/tasks/adcp-tasks.ts). Past CLOSE_BOUND_MS the test fails instead of hanging.
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/adcp-client.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';

/** Longer than close() may take: past it the test fails instead of hanging its file. */
const CLOSE_BOUND_MS = 15_000;

describe('close() with a webhook delivery in flight', () => {
  let receiver: Server;
  let hookUrl: string;
  const held: IncomingMessage[] = [];
  before(async () => {
    // Reads each delivery and never answers it.
    receiver = createServer((req) => {
      held.push(req);
      req.resume();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  after(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const until = async (predicate: () => boolean | Promise<boolean>, what: string) => {
    for (let i = 0; i < 200; i += 1) {
      if (await predicate()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const bounded = async <T>(closing: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`close() still waited after ${CLOSE_BOUND_MS} ms`)), CLOSE_BOUND_MS);
    });
    try {
      return await Promise.race([closing, bound]);
    } finally {
      clearTimeout(timer);
    }
  };

  for (const { label, completeAfterMs, abortedTasks } of [
    {
      label: 'the task still working: its work is cut short, its webhooks given up',
      completeAfterMs: 600_000,
      abortedTasks: 1,
    },
    {
      label: 'the task completed: the completed webhook waits behind the working one, both given up',
      completeAfterMs: 40,
      abortedTasks: 0,
    },
  ]) {
    it(label, async () => {
      held.length = 0;
      const seller = await startReferenceSeller({ timings: { workingAfterMs: 10, completeAfterMs } });
      let closing: ReturnType<ReferenceSeller['close']> | undefined;
      const client = new AdcpClient({ url: seller.mcpUrl, protocol: 'mcp', retry: false });
      try {
        const submitted = await client.call('create_media_buy', {
          ...mediaBuyRequest([packageRequest('ctv_premium_sports', 100)]),
          idempotency_key: randomUUID(),
          push_notification_config: { url: hookUrl, operation_id: 'op-close' },
        });
        assert.equal(submitted.status, 'submitted', JSON.stringify(submitted));
        const taskId = (submitted.data as { task_id: string }).task_id;
        await until(() => held.length > 0, 'the working webhook to reach the receiver');
        const status = async () =>
          String(((await client.call('get_task_status', { task_id: taskId })).data as { status?: string }).status);
        if (abortedTasks === 0) await until(async () => (await status()) === 'completed', 'completed');
        else assert.equal(await status(), 'working');
        await client.close();
        closing = seller.close();
        const report = await bounded(closing);
        // The working webhook cut short and the final one behind it: both owed, both counted.
        assert.deepEqual(report, { abortedTasks, undeliveredWebhooks: 2 });
        assert.equal(held.length, 1, 'nothing went out after the working webhook');
      } finally {
        await client.close();
        // A close() past its bound is not waited for again: the test has failed already.
        if (closing === undefined) await bounded(seller.close());
      }
    });
  }
});
