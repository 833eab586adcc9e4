import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWebhookEmitter, type DeliveryAttempt } from '../../src/webhooks/create-webhook-emitter.js';
import { createWebhookHandler } from '../../src/webhooks/create-webhook-handler.js';
import type { WebhookEvent } from '../../src/webhooks/handler-types.js';
import { backoffDelay, parseRetryAfter } from '../../src/webhooks/delivery-policy.js';
import { SqliteDedupStore } from '../../src/store/sqlite-dedup-store.js';
import { SqliteOperationStore } from '../../src/store/sqlite-operation-store.js';
import { SECRET, makeKey } from './helpers.js';

async function listen(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const noSleep = { sleep: async () => undefined, allowInsecureUrls: true, baseDelayMs: 1 };

describe('createWebhookEmitter -> createWebhookHandler over loopback', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-emitter-'));
  const seller = makeKey('seller-webhook-key');
  const events: WebhookEvent[] = [];
  let failNext = 0;
  let rfc: { server: Server; url: string };
  let hmac: { server: Server; url: string };
  const dedup = new SqliteDedupStore({ path: join(dir, 'buyer.db') });
  const operations = new SqliteOperationStore({ path: join(dir, 'buyer.db') });
  const onEvent = async (event: WebhookEvent) => {
    if (failNext > 0) {
      failNext -= 1;
      throw new Error('transient');
    }
    await new Promise((r) => setTimeout(r, 2));
    events.push(event);
  };
  before(async () => {
    const rfcHandler = createWebhookHandler({
      signature: { scheme: 'rfc9421', jwks: [seller.publicJwk] },
      dedup,
      operations,
      agent: 'https://seller.example',
      onEvent,
    });
    const hmacHandler = createWebhookHandler({
      signature: { scheme: 'hmac', secret: SECRET },
      dedup,
      operations,
      agent: 'https://hmac-seller.example',
      onEvent,
    });
    rfc = await listen(rfcHandler.node);
    hmac = await listen(hmacHandler.node);
  });
  after(async () => {
    rfc.server.closeAllConnections();
    hmac.server.closeAllConnections();
    await new Promise((r) => rfc.server.close(r));
    await new Promise((r) => hmac.server.close(r));
    await dedup.close();
    await operations.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers an RFC 9421-signed event that the handler verifies, dispatches and records', async () => {
    const emitter = createWebhookEmitter({ signingKey: seller.signing, ...noSleep });
    const outcome = await emitter.send(
      { url: `${rfc.url}/webhooks/create_media_buy/route_1`, operation_id: 'op_rfc_1' },
      { taskId: 'task_1', taskType: 'create_media_buy', status: 'completed', result: { media_buy_id: 'mb_1' } },
    );
    assert.equal(outcome.ok, true);
    assert.equal(outcome.attempts, 1);
    const event = events.find((e) => e.operationId === 'op_rfc_1');
    assert.deepEqual(event?.data, { media_buy_id: 'mb_1' });
    assert.equal(event?.sender.keyid, 'seller-webhook-key');
    assert.equal((await operations.get('op_rfc_1'))?.status, 'completed');
  });

  it('delivers with legacy HMAC when the buyer registered credentials', async () => {
    const emitter = createWebhookEmitter(noSleep);
    const outcome = await emitter.send(
      {
        url: `${hmac.url}/hook`,
        operation_id: 'op_hmac_1',
        authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET },
      },
      { taskId: 'task_2', taskType: 'sync_creatives', status: 'completed', result: { ok: true } },
    );
    assert.equal(outcome.ok, true);
    assert.equal(events.find((e) => e.operationId === 'op_hmac_1')?.sender.scheme, 'hmac');
  });

  it('retries after a handler failure (500) with the same key, and the handler then runs once', async () => {
    failNext = 1;
    const before = events.length;
    const emitter = createWebhookEmitter({ signingKey: seller.signing, ...noSleep });
    const outcome = await emitter.send(
      { url: `${rfc.url}/hook`, operation_id: 'op_retry_1' },
      { taskId: 't', taskType: 'create_media_buy', status: 'completed' },
    );
    assert.deepEqual([outcome.ok, outcome.attempts], [true, 2]);
    assert.equal(events.length - before, 1);
  });

  it('runs the handler once for 100 parallel deliveries of one key (SQLite dedup, node adapter)', async () => {
    const before = events.length;
    const emitter = createWebhookEmitter({
      signingKey: seller.signing,
      ...noSleep,
      maxAttempts: 50,
      sleep: () => new Promise((r) => setTimeout(r, 5)),
    });
    const { buildWebhookEnvelope } = await import('../../src/webhooks/build-webhook-envelope.js');
    const envelope = buildWebhookEnvelope({
      operationId: 'op_parallel',
      taskId: 't',
      taskType: 'create_media_buy',
      status: 'completed',
    });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () => emitter.deliver({ url: `${rfc.url}/hook` }, envelope)),
    );
    assert.equal(outcomes.filter((o) => o.ok).length, 100);
    assert.equal(events.length - before, 1);
  });
});

describe('createWebhookEmitter (retry policy)', () => {
  const seller = makeKey();
  const servers: Server[] = [];
  after(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  async function scripted(answers: Array<{ status: number; headers?: Record<string, string> }>) {
    const bodies: string[] = [];
    const signatures: string[] = [];
    const { server, url } = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        signatures.push(String(req.headers['signature'] ?? ''));
        const answer = answers[Math.min(bodies.length - 1, answers.length - 1)] ?? { status: 200 };
        res.writeHead(answer.status, answer.headers ?? {});
        res.end();
      });
    });
    servers.push(server);
    return { url, bodies, signatures };
  }

  it('honours Retry-After and keeps the body and idempotency key identical across retries', async () => {
    const target = await scripted([{ status: 503, headers: { 'retry-after': '7' } }, { status: 503 }, { status: 200 }]);
    const delays: number[] = [];
    const attempts: DeliveryAttempt[] = [];
    const emitter = createWebhookEmitter({
      signingKey: seller.signing,
      allowInsecureUrls: true,
      baseDelayMs: 1000,
      random: () => 1,
      sleep: async (ms) => void delays.push(ms),
      onAttempt: (a) => attempts.push(a),
    });
    const outcome = await emitter.send(
      { url: target.url, operation_id: 'op' },
      { taskId: 't', taskType: 'x', status: 'completed' },
    );
    assert.deepEqual(outcome, { ok: true, idempotencyKey: outcome.idempotencyKey, attempts: 3, status: 200 });
    assert.deepEqual(delays, [7000, 2000]);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status, a.nextDelayMs]),
      [
        [1, 503, 7000],
        [2, 503, 2000],
        [3, 200, undefined],
      ],
    );
    assert.equal(new Set(target.bodies).size, 1);
    assert.equal(new Set(target.signatures).size, 3, 'each attempt is signed afresh');
    assert.equal(JSON.parse(target.bodies[0] as string).idempotency_key, outcome.idempotencyKey);
  });

  it('stops at once on 401 with a webhook_* signature error', async () => {
    const target = await scripted([
      { status: 401, headers: { 'www-authenticate': 'Signature error="webhook_signature_invalid"' } },
    ]);
    const outcome = await createWebhookEmitter({ signingKey: seller.signing, ...noSleep }).send(
      { url: target.url, operation_id: 'op' },
      { taskId: 't', taskType: 'x', status: 'failed' },
    );
    assert.deepEqual([outcome.ok, outcome.attempts, !outcome.ok && outcome.reason], [false, 1, 'signature_rejected']);
  });

  it('stops at once on 409 (key bound to another payload)', async () => {
    const target = await scripted([{ status: 409 }]);
    const outcome = await createWebhookEmitter({ signingKey: seller.signing, ...noSleep }).send(
      { url: target.url, operation_id: 'op' },
      { taskId: 't', taskType: 'x', status: 'failed' },
    );
    assert.equal(!outcome.ok && outcome.reason, 'conflict');
  });

  it('refuses to follow a redirect', async () => {
    const target = await scripted([{ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }]);
    const outcome = await createWebhookEmitter({ signingKey: seller.signing, ...noSleep }).send(
      { url: target.url, operation_id: 'op' },
      { taskId: 't', taskType: 'x', status: 'failed' },
    );
    assert.deepEqual([!outcome.ok && outcome.reason, target.bodies.length], ['redirect_refused', 1]);
  });

  it('reports retries_exhausted after maxAttempts of 5xx', async () => {
    const target = await scripted([{ status: 500 }]);
    const outcome = await createWebhookEmitter({ signingKey: seller.signing, ...noSleep, maxAttempts: 3 }).send(
      { url: target.url, operation_id: 'op' },
      { taskId: 't', taskType: 'x', status: 'failed' },
    );
    assert.deepEqual(
      [outcome.ok, outcome.attempts, !outcome.ok && outcome.reason, !outcome.ok && outcome.status],
      [false, 3, 'retries_exhausted', 500],
    );
  });

  it('times out a silent receiver and retries', async () => {
    const { server, url } = await listen(() => undefined);
    servers.push(server);
    const outcome = await createWebhookEmitter({
      signingKey: seller.signing,
      ...noSleep,
      maxAttempts: 2,
      timeoutMs: 50,
    }).send({ url, operation_id: 'op' }, { taskId: 't', taskType: 'x', status: 'failed' });
    assert.deepEqual([outcome.ok, outcome.attempts, !outcome.ok && outcome.reason], [false, 2, 'retries_exhausted']);
  });

  it('refuses http and private addresses unless explicitly allowed', async () => {
    const emitter = createWebhookEmitter({ signingKey: seller.signing });
    for (const url of [
      'http://buyer.example/hook',
      'https://127.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/x',
      'https://user:pw@buyer.example/',
    ]) {
      const outcome = await emitter.send({ url, operation_id: 'op' }, { taskId: 't', taskType: 'x', status: 'failed' });
      assert.deepEqual([outcome.ok, outcome.attempts, !outcome.ok && outcome.reason], [false, 0, 'unsafe_url'], url);
    }
  });

  it('refuses weak buyer HMAC credentials without sending', async () => {
    const target = await scripted([{ status: 200 }]);
    const outcome = await createWebhookEmitter(noSleep).send(
      { url: target.url, operation_id: 'op', authentication: { schemes: ['HMAC-SHA256'], credentials: 'short' } },
      { taskId: 't', taskType: 'x', status: 'failed' },
    );
    assert.deepEqual([outcome.ok, target.bodies.length], [false, 0]);
  });
});

describe('delivery policy', () => {
  it('backs off exponentially with jitter between 50% and 100% of the step, capped', () => {
    const opts = { baseDelayMs: 1000, maxDelayMs: 8000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((a) => backoffDelay(a, opts, () => 1)),
      [1000, 2000, 4000, 8000, 8000],
    );
    assert.deepEqual(
      [1, 2, 3].map((a) => backoffDelay(a, opts, () => 0)),
      [500, 1000, 2000],
    );
  });
  it('never waits less than Retry-After', () => {
    assert.equal(
      backoffDelay(1, { baseDelayMs: 1000, maxDelayMs: 8000 }, () => 0, 30_000),
      30_000,
    );
  });
  it('parses Retry-After seconds and HTTP dates, and ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfter('12', now), 12_000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(null, now), undefined);
  });
});
