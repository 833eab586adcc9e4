import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import type { JsonObject } from '../../core/types.js';
import { isJsonObject } from '../../core/json-object.js';
import { MemoryIdempotencyStore } from '../../store/memory-idempotency-store.js';
import { MemoryTaskStore } from '../../store/memory-task-store.js';
import { createIdempotencyLayer, idempotencyPayloadHash } from './idempotency.js';
import { AdcpToolError } from '../tools/tool-error.js';

const HOUR = 3_600_000;

function layer(insertLimits?: Parameters<typeof createIdempotencyLayer>[0]['insertLimits']) {
  let clock = 1_700_000_000_000;
  let runs = 0;
  const idempotency = createIdempotencyLayer({
    store: new MemoryIdempotencyStore(),
    tasks: new MemoryTaskStore(),
    replayTtlMs: HOUR,
    inFlightMs: 10_000,
    waitMs: 1_000,
    now: () => clock,
    ...(insertLimits === undefined ? {} : { insertLimits }),
  });
  const call = (args: JsonObject, requiresKey = true) =>
    idempotency.run({ principal: 'p', tool: 'create_media_buy', args, requiresKey }, async () => {
      runs += 1;
      return { media_buy_id: `mb_${runs}` };
    });
  return { call, runs: () => runs, advance: (ms: number) => (clock += ms) };
}

async function refusal(promise: Promise<unknown>): Promise<AdcpToolError> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AdcpToolError);
  return error;
}

describe('idempotencyPayloadHash', () => {
  it('is the same for another key order and number spelling once parsed, and differs for another value', () => {
    const a = JSON.parse('{"budget":5000,"packages":[{"b":1,"a":2}],"idempotency_key":"k1","context":{"x":1}}');
    const b = JSON.parse('{"packages":[{"a":2.0,"b":1e0}],"budget":5e3,"idempotency_key":"k2","context":{"y":2}}');
    assert.equal(idempotencyPayloadHash('t', a), idempotencyPayloadHash('t', b));
    assert.notEqual(idempotencyPayloadHash('t', a), idempotencyPayloadHash('t', { ...a, budget: 5001 }));
    assert.notEqual(idempotencyPayloadHash('t', a), idempotencyPayloadHash('other_tool', a));
    assert.notEqual(idempotencyPayloadHash('t', { x: null }), idempotencyPayloadHash('t', {}), 'null is not absent');
  });

  it('hashes exactly the RFC 8785 form of { payload, tool } without the excluded fields (stored hashes stay valid)', () => {
    const args = JSON.parse(
      '{"idempotency_key":"k-0123456789abcdef","context":{"x":1},"governance_context":"g","brand":{"domain":"example.com"},"budget":5000,"packages":[{"b":1,"a":"é"}],"push_notification_config":{"url":"https://buyer.example/hook","authentication":{"schemes":["HMAC-SHA256"],"credentials":"secret-0123456789-0123456789-0123"}},"ext":null}',
    ) as JsonObject;
    const canonical =
      '{"payload":{"brand":{"domain":"example.com"},"budget":5000,"ext":null,"packages":[{"a":"é","b":1}],"push_notification_config":{"authentication":{"schemes":["HMAC-SHA256"]},"url":"https://buyer.example/hook"}},"tool":"create_media_buy"}';
    assert.equal(
      idempotencyPayloadHash('create_media_buy', args),
      createHash('sha256').update(canonical).digest('hex'),
    );
    assert.equal(
      idempotencyPayloadHash('t', {}),
      createHash('sha256').update('{"payload":{},"tool":"t"}').digest('hex'),
    );
    const push = args.push_notification_config;
    assert.ok(isJsonObject(push) && isJsonObject(push.authentication), 'the request is left as it was');
    assert.equal(push.authentication.credentials, 'secret-0123456789-0123456789-0123');
    assert.deepEqual(Object.keys(args).length, 8);
  });
});

describe('createIdempotencyLayer', () => {
  it('refuses a mutating call without a key, running nothing; a read runs without one', async () => {
    const { call, runs } = layer();
    const error = await refusal(call({ budget: 1 }));
    assert.deepEqual(error.toAdcpError(), {
      code: 'INVALID_REQUEST',
      message: 'idempotency_key is required on create_media_buy: send a fresh UUID v4 and keep it for every retry.',
      recovery: 'correctable',
      field: 'idempotency_key',
    });
    assert.equal(runs(), 0);
    await call({ budget: 1 }, false);
    assert.equal(runs(), 1);
  });

  it('refuses a 10 KB key and a non-ASCII key without echoing them or running anything', async () => {
    const { call, runs } = layer();
    for (const key of ['k'.repeat(10_240), `${'é'.repeat(20)}`, 'clé-0123456789abcdef']) {
      const error = await refusal(call({ idempotency_key: key }));
      assert.equal(error.code, 'INVALID_REQUEST');
      assert.equal(error.field, 'idempotency_key');
      assert.ok(!JSON.stringify(error.toAdcpError()).includes(key.slice(0, 16)));
    }
    assert.equal(runs(), 0);
  });

  it('replays within the window, answers IDEMPOTENCY_EXPIRED past it, and never runs the handler again', async () => {
    const { call, runs, advance } = layer();
    const key = randomUUID();
    assert.deepEqual(await call({ idempotency_key: key, budget: 1 }), { media_buy_id: 'mb_1' });
    advance(HOUR - 1);
    assert.deepEqual(await call({ idempotency_key: key, budget: 1 }), { media_buy_id: 'mb_1', replayed: true });
    advance(1);
    const expired = await refusal(call({ idempotency_key: key, budget: 1 }));
    assert.deepEqual(expired.toAdcpError(), {
      code: 'IDEMPOTENCY_EXPIRED',
      message: expired.message,
      recovery: 'correctable',
    });
    assert.equal(runs(), 1);
  });

  it('answers IDEMPOTENCY_CONFLICT with the code, a message and its recovery only', async () => {
    const { call } = layer();
    const key = randomUUID();
    await call({ idempotency_key: key, budget: 1 });
    const conflict = (await refusal(call({ idempotency_key: key, budget: 2 }))).toAdcpError();
    assert.deepEqual(Object.keys(conflict).sort(), ['code', 'message', 'recovery']);
    assert.equal(conflict.code, 'IDEMPOTENCY_CONFLICT');
    assert.ok(!JSON.stringify(conflict).includes('mb_1'));
  });

  it('answers 10,000 fresh keys a second from one principal with RATE_LIMITED past the burst, caching none', async () => {
    const { call, runs, advance } = layer();
    let limited: AdcpToolError | undefined;
    let limitedKey = '';
    for (let i = 0; i < 10_000; i += 1) {
      const key = randomUUID();
      const outcome = await call({ idempotency_key: key }).catch((e: unknown) => e);
      if (outcome instanceof AdcpToolError && limited === undefined) {
        limited = outcome;
        limitedKey = key;
      }
      if (i % 1000 === 999) advance(100);
    }
    assert.equal(runs(), 3000, 'the 10 s write burst (300/s)');
    assert.equal(limited?.code, 'RATE_LIMITED');
    assert.equal(limited?.recovery, 'transient');
    assert.ok((limited?.retryAfter ?? 0) >= 1);
    // security.md rule 3 and the rate_limit_replay_invariant: the refused key was not stored.
    advance(61_000);
    assert.deepEqual(await call({ idempotency_key: limitedKey }), { media_buy_id: 'mb_3001' });
  });
});
