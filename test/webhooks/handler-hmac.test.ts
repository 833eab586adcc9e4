import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import type { WebhookEvent, WebhookHandler } from '../../src/webhooks/handler-types.js';
import { MemoryDedupStore } from '../../src/store/memory-dedup-store.js';
import { MemoryOperationStore } from '../../src/store/memory-operation-store.js';
import { signWebhookHmac } from '../../src/webhooks/hmac.js';
import { SECRET, URL_BASE, envelope, hmacRequest, json, makeKey, rawHmacRequest, signedRequest } from './helpers.js';

describe('createWebhookHandler (HMAC)', () => {
  let events: WebhookEvent[];
  let fail: number;
  let handler: WebhookHandler;
  let operations: MemoryOperationStore;
  beforeEach(() => {
    events = [];
    fail = 0;
    operations = new MemoryOperationStore();
    handler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      operations,
      agent: 'https://seller.example/mcp',
      onEvent: (event) => {
        if (fail > 0) {
          fail -= 1;
          throw new Error('downstream unavailable');
        }
        events.push(event);
      },
    });
  });

  it('accepts a signed MCP event, runs the handler once and answers 200', async () => {
    const payload = envelope();
    const response = await handler.fetch(hmacRequest(JSON.stringify(payload)));
    assert.equal(response.status, 200);
    assert.deepEqual(await json(response), { ok: true, result: 'accepted' });
    assert.equal(events.length, 1);
    assert.equal(events[0]?.idempotencyKey, payload.idempotency_key);
    assert.equal(events[0]?.operationId, payload.operation_id);
    assert.deepEqual(events[0]?.data, payload.result);
    assert.equal(events[0]?.sender.scope, 'https://seller.example/mcp');
  });

  it('records the operation from the payload operation_id and task_type', async () => {
    const payload = envelope({ status: 'completed' });
    await handler.fetch(hmacRequest(JSON.stringify(payload)));
    const record = await handler.getOperation(payload.operation_id as string);
    assert.equal(record?.status, 'completed');
    assert.equal(record?.taskType, 'create_media_buy');
    assert.equal(record?.taskId, payload.task_id);
    assert.equal(record?.agent, 'https://seller.example/mcp');
    assert.deepEqual(record?.result, payload.result);
  });

  it('answers a retry of a processed key with 200 without running the handler again', async () => {
    const body = JSON.stringify(envelope());
    await handler.fetch(hmacRequest(body));
    const again = await handler.fetch(hmacRequest(body));
    assert.equal(again.status, 200);
    assert.deepEqual(await json(again), { ok: true, result: 'duplicate' });
    assert.equal(events.length, 1);
  });

  it('treats a retry with other whitespace and member order as the same event', async () => {
    const payload = envelope();
    await handler.fetch(hmacRequest(JSON.stringify(payload)));
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(payload).reverse()), null, 2);
    const again = await handler.fetch(hmacRequest(reordered));
    assert.deepEqual(await json(again), { ok: true, result: 'duplicate' });
  });

  it('answers 409 for the same key with a changed payload and does not dispatch it', async () => {
    const payload = envelope();
    await handler.fetch(hmacRequest(JSON.stringify(payload)));
    const changed = await handler.fetch(hmacRequest(JSON.stringify({ ...payload, status: 'failed' })));
    assert.equal(changed.status, 409);
    assert.equal(events.length, 1);
  });

  it('answers 500 when the handler fails and runs it again on the retry', async () => {
    fail = 1;
    const body = JSON.stringify(envelope());
    const first = await handler.fetch(hmacRequest(body));
    assert.equal(first.status, 500);
    assert.deepEqual(await json(first), { ok: false, reason: 'handler_failed' });
    const retry = await handler.fetch(hmacRequest(body));
    assert.equal(retry.status, 200);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.stale, false);
  });

  it('answers 503 with Retry-After while another delivery of the key is being handled', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      leaseMs: 30_000,
      onEvent: () => gate,
    });
    const body = JSON.stringify(envelope());
    const first = slow.fetch(hmacRequest(body));
    await new Promise((r) => setTimeout(r, 20));
    const second = await slow.fetch(hmacRequest(body));
    assert.equal(second.status, 503);
    assert.equal(second.headers.get('retry-after'), '30');
    release();
    assert.equal((await first).status, 200);
  });

  it('runs the handler once for 100 parallel deliveries of one key', async () => {
    let calls = 0;
    const once = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      onEvent: async () => {
        calls += 1;
        await new Promise((r) => setTimeout(r, 5));
      },
    });
    const body = JSON.stringify(envelope());
    const responses = await Promise.all(Array.from({ length: 100 }, () => once.fetch(hmacRequest(body))));
    const statuses = responses.map((r) => r.status);
    assert.equal(calls, 1);
    assert.equal(statuses.filter((s) => s === 200).length >= 1, true);
    assert.deepEqual(
      [...new Set(statuses)].filter((s) => s !== 200 && s !== 503),
      [],
    );
    const retry = await once.fetch(hmacRequest(body));
    assert.deepEqual(await json(retry), { ok: true, result: 'duplicate' });
    assert.equal(calls, 1);
  });

  it('refuses a wrong signature with 401 and a typed reason', async () => {
    const body = JSON.stringify(envelope());
    const response = await handler.fetch(
      hmacRequest(body, { secret: 'Zx8Vq2Lw5Nt7Mb1Rc4Hy6Jd9Pf3Gk0Sa2Ee5Uu8Ii1Oo4' }),
    );
    assert.equal(response.status, 401);
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_hmac_signature_mismatch' });
    assert.equal(events.length, 0);
  });

  it('refuses a timestamp that is not an integer', async () => {
    const body = JSON.stringify(envelope());
    const signed = signWebhookHmac({ secret: SECRET, rawBody: body });
    const request = new Request(URL_BASE, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-adcp-signature': signed.signature,
        'x-adcp-timestamp': `${signed.timestamp}.0`,
      },
      body,
    });
    const response = await handler.fetch(request);
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_hmac_timestamp_not_integer' });
  });

  it('refuses a stale timestamp', async () => {
    const response = await handler.fetch(
      hmacRequest(JSON.stringify(envelope()), { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    );
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_hmac_timestamp_out_of_window' });
  });

  it('refuses a body with duplicate keys as malformed (400), not as a bad signature', async () => {
    const body =
      '{"idempotency_key":"whk_aaaaaaaaaaaaaaaa","operation_id":"op","task_id":"t","task_type":"x","status":"completed","status":"failed","timestamp":"2026-01-01T00:00:00Z"}';
    const response = await handler.fetch(rawHmacRequest(body));
    assert.equal(response.status, 400);
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_body_malformed' });
    assert.equal(events.length, 0);
  });

  it('refuses a body over the cap with 413 before verifying anything', async () => {
    const small = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      maxBodyBytes: 100,
    });
    const response = await small.fetch(hmacRequest(JSON.stringify(envelope({ result: { pad: 'x'.repeat(200) } }))));
    assert.equal(response.status, 413);
  });

  it('refuses a streamed body without Content-Length as soon as it passes the cap', async () => {
    const small = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup: new MemoryDedupStore(),
      maxBodyBytes: 1000,
    });
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        if (pulled > 1000) controller.close();
        else controller.enqueue(new Uint8Array(512).fill(32));
      },
    });
    const request = new Request(URL_BASE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    const response = await small.fetch(request);
    assert.equal(response.status, 413);
    assert.ok(pulled < 10, `pulled ${pulled} chunks`);
  });

  it('refuses another content type with 415 and another method with 405', async () => {
    const wrongType = await handler.fetch(hmacRequest(JSON.stringify(envelope()), { contentType: 'text/plain' }));
    assert.equal(wrongType.status, 415);
    const get = await handler.fetch(new Request(URL_BASE));
    assert.equal(get.status, 405);
  });

  it('refuses a bare result posted as the body (400)', async () => {
    const body = JSON.stringify({
      notification_type: 'scheduled',
      sequence_number: 31,
      currency: 'USD',
      media_buy_deliveries: [],
    });
    const response = await handler.fetch(hmacRequest(body));
    assert.equal(response.status, 400);
    assert.deepEqual(await json(response), { ok: false, reason: 'envelope_missing_envelope_fields' });
  });

  it('refuses a bare { message } envelope with 400, not 200', async () => {
    for (const body of ['{"message":"done"}', '{"message":{"role":"agent","parts":[{"text":"done"}]}}']) {
      const response = await handler.fetch(hmacRequest(body));
      assert.equal(response.status, 400, body);
    }
    assert.equal(events.length, 0);
  });

  it('refuses an envelope without idempotency_key (400)', async () => {
    const { idempotency_key: _drop, ...rest } = envelope();
    const response = await handler.fetch(hmacRequest(JSON.stringify(rest)));
    assert.deepEqual(await json(response), { ok: false, reason: 'envelope_missing_idempotency_key' });
  });

  it('correlates by the payload operation_id, never by the URL', async () => {
    const payload = envelope();
    await handler.fetch(
      hmacRequest(JSON.stringify(payload), { url: 'http://127.0.0.1:8080/webhooks/create_media_buy/op_from_url' }),
    );
    assert.equal(await handler.getOperation('op_from_url'), undefined);
    assert.equal((await handler.getOperation(payload.operation_id as string))?.status, 'completed');
  });

  it('does not move an operation backwards on a stale event, and flags it stale', async () => {
    const operationId = 'op_stale_case';
    await handler.fetch(
      hmacRequest(
        JSON.stringify(envelope({ operation_id: operationId, status: 'completed', timestamp: '2026-01-01T10:00:00Z' })),
      ),
    );
    await handler.fetch(
      hmacRequest(
        JSON.stringify(
          envelope({
            operation_id: operationId,
            status: 'working',
            timestamp: '2026-01-01T09:00:00Z',
            result: { percentage: 10 },
          }),
        ),
      ),
    );
    const record = await handler.getOperation(operationId);
    assert.equal(record?.status, 'completed');
    assert.equal(events[1]?.stale, true);
    assert.equal(events[0]?.stale, false);
  });

  it('refuses (409) an event whose task_type differs from the operation it names', async () => {
    await operations.create({
      operationId: 'op_typed',
      agent: 'https://seller.example/mcp',
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: 0,
    });
    const response = await handler.fetch(
      hmacRequest(JSON.stringify(envelope({ operation_id: 'op_typed', task_type: 'sync_creatives' }))),
    );
    assert.deepEqual([response.status, (await json(response)).reason], [409, 'operation_task_type_mismatch']);
    assert.equal((await operations.get('op_typed'))?.status, 'submitted');
    assert.equal(events.length, 0);
  });

  it('refuses (409) an event for an operation that belongs to another seller', async () => {
    await operations.create({
      operationId: 'op_other_seller',
      agent: 'https://other-seller.example/mcp',
      taskType: 'create_media_buy',
      status: 'submitted',
      statusAt: 0,
    });
    const response = await handler.fetch(hmacRequest(JSON.stringify(envelope({ operation_id: 'op_other_seller' }))));
    assert.deepEqual([response.status, (await json(response)).reason], [409, 'operation_agent_mismatch']);
    assert.equal((await operations.get('op_other_seller'))?.status, 'submitted');
  });

  it('counts a far-future payload timestamp as now, so it cannot freeze the operation', async () => {
    const operationId = 'op_future_case';
    await handler.fetch(
      hmacRequest(
        JSON.stringify(envelope({ operation_id: operationId, status: 'working', timestamp: '2999-01-01T00:00:00Z' })),
      ),
    );
    const record = await handler.getOperation(operationId);
    assert.ok((record?.statusAt ?? Infinity) <= Date.now() + 60_000);
  });

  it('refuses an RFC 9421-signed delivery on an HMAC endpoint with webhook_mode_mismatch', async () => {
    const { signing } = makeKey();
    const response = await handler.fetch(signedRequest(JSON.stringify(envelope()), signing));
    assert.equal(response.status, 401);
    assert.deepEqual(await json(response), { ok: false, reason: 'webhook_mode_mismatch' });
  });

  it('lists operations and waits for one to become final', async () => {
    const payload = envelope({ status: 'working', result: { percentage: 50 } });
    await handler.fetch(hmacRequest(JSON.stringify(payload)));
    const waiting = handler.waitForOperation(payload.operation_id as string, { timeoutMs: 5000 });
    const done = envelope({
      operation_id: payload.operation_id,
      status: 'completed',
      timestamp: '2026-06-01T00:00:00Z',
    });
    await handler.fetch(hmacRequest(JSON.stringify(done)));
    const record = await waiting;
    assert.equal(record.status, 'completed');
    assert.deepEqual(
      (await handler.listOperations({ statuses: ['completed'] })).map((r) => r.operationId),
      [payload.operation_id],
    );
  });

  it('rejects waitForOperation with a timeout error when nothing arrives', async () => {
    await assert.rejects(
      handler.waitForOperation('op_never', { timeoutMs: 30, pollMs: 10 }),
      (error: unknown) => (error as { code?: string }).code === 'timeout',
    );
  });

  it('rejects waitForOperation with an aborted error when the signal fires', async () => {
    const controller = new AbortController();
    const waiting = handler.waitForOperation('op_never', { signal: controller.signal });
    controller.abort();
    await assert.rejects(waiting, (error: unknown) => (error as { code?: string }).code === 'aborted');
  });
});

describe('createWebhookHandler (configuration)', () => {
  it('sweeps expired dedup keys periodically until closed', async () => {
    const dedup = new MemoryDedupStore();
    let sweeps = 0;
    const sweep = dedup.sweep.bind(dedup);
    dedup.sweep = async (now?: number) => {
      sweeps += 1;
      return sweep(now);
    };
    const handler = createWebhookHandler({ signature: { scheme: 'hmac', secret: SECRET }, dedup, sweepIntervalMs: 5 });
    for (let i = 0; i < 200 && sweeps < 2; i += 1) await new Promise((r) => setTimeout(r, 5));
    handler.close();
    const after = sweeps;
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(after >= 2, `swept ${after} times`);
    assert.equal(sweeps, after, 'no sweep after close');
  });

  it('refuses to start without a signature scheme', () => {
    assert.throws(() => createWebhookHandler({ dedup: new MemoryDedupStore() } as never), TypeError);
  });

  it('refuses a weak HMAC secret at creation', () => {
    for (const secret of ['', 'short', '0'.repeat(32), 'abab'.repeat(10)]) {
      assert.throws(
        () => createWebhookHandler({ signature: { scheme: 'hmac', secret }, dedup: new MemoryDedupStore() }),
        RangeError,
        secret,
      );
    }
  });

  it('refuses to start without a dedup store', () => {
    assert.throws(() => createWebhookHandler({ signature: { scheme: 'hmac', secret: SECRET } } as never), TypeError);
  });

  it('accepts unsigned webhooks only with the explicit opt-in, and warns', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => warnings.push(w.code ?? '');
    process.on('warning', onWarning);
    const unsigned = createWebhookHandler({ signature: 'none-i-know-this-is-unsafe', dedup: new MemoryDedupStore() });
    const response = await unsigned.fetch(
      new Request(URL_BASE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(envelope()),
      }),
    );
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    assert.equal(response.status, 200);
    assert.deepEqual(warnings, ['ADCP_UNSIGNED_WEBHOOKS']);
  });
});
