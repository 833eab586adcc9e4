import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import type { WebhookEvent } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { envelope, hmacRequest, SECRET } from './helpers.js';

describe('createWebhookHandler({ validate: true })', () => {
  const deliver = async (payload: Record<string, unknown>, validate = true) => {
    const events: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      validate,
      onEvent: (event) => {
        events.push(event);
      },
    });
    const response = await handler.fetch(hmacRequest(JSON.stringify(payload)));
    assert.equal(response.status, 200, 'a schema failure is reported, never refused');
    return events[0]!;
  };

  it('checks a working result against the status-specific schema', async () => {
    const good = await deliver(envelope({ status: 'working', result: { percentage: 40 } }));
    assert.deepEqual(good.validation, {
      ok: true,
      release: '3.1',
      schema: 'media-buy/create-media-buy-async-response-working.json',
      issues: [],
    });
    const bad = await deliver(envelope({ status: 'working', result: { percentage: 'forty' } }));
    assert.equal(bad.validation?.ok, false);
    assert.equal(bad.validation?.issues[0]?.pointer, '/percentage');
    assert.deepEqual(bad.data, { percentage: 'forty' }, 'the data is kept');
  });

  it('checks a completed result against the response schema of the release the payload names', async () => {
    const event = await deliver(
      envelope({ status: 'completed', adcp_version: '3.0', result: { media_buy_id: 'mb_1' } }),
    );
    assert.equal(event.validation?.release, '3.0');
    assert.equal(event.validation?.schema, 'media-buy/create-media-buy-response.json');
    assert.equal(event.validation?.ok, false);
  });

  it('leaves validation out when it is off', async () => {
    const event = await deliver(envelope({ status: 'working', result: { percentage: 'x' } }), false);
    assert.equal(event.validation, undefined);
  });
});
