// test-timeout-ms: 600000
// Three `adcp serve --store-url postgres://...` processes behind the round-robin proxy; 200
// create_media_buy operations with a push_notification_config to a loopback receiver that
// records every delivery; one instance is SIGKILLed in the middle and restarted. Every operation
// completes once (one media buy per idempotency key: a task the dead instance was working on is
// failed by another instance, with its webhook, and the buyer's retry with the same key runs it
// again), and every webhook the fleet owed (each row of the outbox) arrives: exactly once after
// dedup by idempotency_key; raw duplicates (a send whose outcome died with its instance) are
// counted and printed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdcpClient } from '../../src/client/adcp-client.js';
import type { TaskResult } from '../../src/core/task-result.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { ServeProcess } from '../interop/helpers/spawn-serve.js';
import { adminQuery, pgSkip } from '../pg/pg-test-env.js';
import type { RoundRobinProxy } from './round-robin-proxy.js';
import { startSellerFleet, type SellerFleet } from './seller-fleet.js';

type Json = { [key: string]: unknown };
const INSTANCES = 3;
const OPERATIONS = 200;
const PRINCIPALS = 10; // the task store admits 120 new tasks a minute per principal
const CONCURRENCY = 24;
const KILL_AFTER = 50; // operations completed before the kill
const SECRET = 'fleet-kill-webhook-secret-of-32-bytes!!';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Delivery {
  key: string;
  operationId: string;
  taskId: string;
  status: string;
}

interface Done {
  key: string;
  operationId: string;
  taskId: string;
  mediaBuyId: string;
  /** create_media_buy sends (a lost answer, a refused connection, a failed task each add one). */
  sends: number;
  /** Tasks of this operation that failed transiently (their instance died) before one completed. */
  abandoned: number;
  /** Sends answered with no task (connection lost, or a transient refusal such as the proxy's 502): the instance may have made a task first. */
  lost: number;
}

describe('a seller fleet with one instance SIGKILLed in the middle of 200 operations', { skip: pgSkip }, () => {
  let fleet: SellerFleet;
  let schema = '';
  let proxy: RoundRobinProxy;
  let receiver: Server;
  let hookUrl = '';
  const deliveries: Delivery[] = [];
  /** The final webhook of each task, by task id (the buyer learns of the end this way). */
  const finals = new Map<string, Json>();
  let instances: ServeProcess[];
  const tokens = Array.from({ length: PRINCIPALS }, (_, i) => ({
    token: randomBytes(16).toString('hex'),
    who: `buyer${i}`,
  }));
  const env = { ADCP_SERVE_TOKENS: tokens.map((t) => `${t.token}=${t.who}`).join(',') };
  const clients: AdcpClient[] = [];

  before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const event = JSON.parse(body) as Json;
        if (event.status === 'completed' || event.status === 'failed') {
          finals.set(String(event.task_id), event);
        }
        deliveries.push({
          key: String(event.idempotency_key),
          operationId: String(event.operation_id),
          taskId: String(event.task_id),
          status: String(event.status),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
    fleet = await startSellerFleet({ prefix: 'fleetkill', count: INSTANCES, env });
    ({ proxy, instances, schema } = fleet);
    for (const { token } of tokens) {
      clients.push(
        new AdcpClient({ url: `${proxy.url}/mcp`, protocol: 'mcp', auth: token, timeoutMs: 60_000, retry: false }),
      );
    }
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await fleet?.close('SIGKILL');
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => (receiver === undefined ? resolve() : receiver.close(() => resolve())));
  });

  /**
   * The task's end: its final webhook, or (every 3 s, in case the webhook is still owed by a dead
   * instance) get_task_status through the proxy. Returns `{ status, result?, error? }`.
   */
  const finalStatus = async (client: AdcpClient, taskId: string, deadline: number): Promise<Json> => {
    let pollAt = Date.now() + 3_000;
    while (Date.now() < deadline) {
      const pushed = finals.get(taskId);
      if (pushed !== undefined) {
        const result = (pushed.result ?? {}) as Json;
        return { status: pushed.status, result, error: result.adcp_error };
      }
      if (Date.now() >= pollAt) {
        pollAt = Date.now() + 3_000;
        const read = await client
          .call('get_task_status', { task_id: taskId, include_result: true })
          .catch(() => undefined);
        const status = read?.status === 'completed' ? read.data?.status : undefined;
        if (status === 'completed' || status === 'failed' || status === 'canceled') return read?.data as Json;
      }
      await sleep(100);
    }
    const { rows } = await adminQuery(
      `SELECT status, runner, lease_expires_at::text AS lease, last_updated_at::text AS updated
         FROM ${schema}.adcp_server_tasks WHERE task_id = $1`,
      [taskId],
    );
    throw new Error(`task ${taskId} did not finish in time: ${JSON.stringify(rows)} (now ${Date.now()})`);
  };

  /** One operation, to its end: resent with the same key until a media buy is made. */
  const operate = async (i: number, deadline: number): Promise<Done> => {
    const client = clients[i % PRINCIPALS] as AdcpClient;
    const key = randomUUID();
    const operationId = `op-${i}-${randomUUID().slice(0, 8)}`;
    const args = mediaBuyRequest([packageRequest('display_ron', 100)], {
      idempotency_key: key,
      push_notification_config: {
        url: hookUrl,
        operation_id: operationId,
        authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET },
      },
    });
    let sends = 0;
    let abandoned = 0;
    let lost = 0;
    while (Date.now() < deadline) {
      sends += 1;
      let answer: TaskResult | undefined;
      try {
        answer = await client.call('create_media_buy', args);
      } catch {
        answer = undefined; // the connection died with its instance: send again, same key
      }
      if (answer === undefined || answer.status === 'failed') {
        lost += 1;
        const wait = answer?.status === 'failed' ? (answer.error.retryDelaySeconds ?? 0.5) : 0.3;
        if (answer?.status === 'failed' && answer.error.recovery !== 'transient') {
          throw new Error(`operation ${i}: ${answer.error.code} ${JSON.stringify(answer.data)}`);
        }
        await sleep(Math.min(wait, 5) * 1000);
        continue;
      }
      const taskId = typeof answer.data?.task_id === 'string' ? answer.data.task_id : String(answer.taskId);
      assert.equal(answer.status, 'submitted', JSON.stringify(answer.data));
      const final = await finalStatus(client, taskId, deadline);
      if (final.status === 'completed') {
        const mediaBuyId = String((final.result as Json).media_buy_id);
        return { key, operationId, taskId, mediaBuyId, sends, abandoned, lost };
      }
      const error = (final.error ?? {}) as Json;
      if (final.status !== 'failed' || error.recovery !== 'transient') {
        throw new Error(`operation ${i} ended ${JSON.stringify(final)}`);
      }
      abandoned += 1; // its instance died: the same key runs the work again
    }
    throw new Error(`operation ${i} did not complete in time`);
  };

  it('completes every operation once and delivers every owed webhook', async () => {
    const started = Date.now();
    const deadline = started + 170_000;
    const done: Done[] = [];
    let next = 0;
    let killedAt = 0;
    let restartedAt = 0;
    const victim = 1;
    const chaos = (async () => {
      while (done.length < KILL_AFTER && Date.now() < deadline) await sleep(50);
      killedAt = Date.now() - started;
      await instances[victim]?.kill('SIGKILL');
      await sleep(2_000); // the balancer still sends it traffic meanwhile: refused, 502, resent
      await fleet.start(victim);
      restartedAt = Date.now() - started;
    })();
    const progress = setInterval(
      () => console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${done.length} done`),
      10_000,
    );
    const worker = async () => {
      while (next < OPERATIONS) {
        const i = next++;
        done.push(await operate(i, deadline));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker)).finally(() => clearInterval(progress));
    await chaos;
    const operationsMs = Date.now() - started;

    // Every operation completed once: one media buy per key, none without one.
    assert.equal(done.length, OPERATIONS);
    assert.equal(new Set(done.map((d) => d.mediaBuyId)).size, OPERATIONS, 'one media buy per operation');
    const buys = await adminQuery(`SELECT count(*)::int AS n FROM ${schema}.adcp_seller_media_buys`);
    assert.equal(buys.rows[0]?.n, OPERATIONS, 'no media buy made twice or lost');

    // Every webhook the fleet owed was sent: the outbox drains (a dead instance's leases lapse).
    let pending = -1;
    for (let i = 0; i < 1200 && pending !== 0; i += 1) {
      const { rows } = await adminQuery(
        `SELECT count(*)::int AS n FROM ${schema}.adcp_webhook_outbox WHERE state <> 'delivered'`,
      );
      pending = Number(rows[0]?.n);
      if (pending !== 0) await sleep(100);
    }
    assert.equal(pending, 0, 'every owed webhook delivered');
    await sleep(500);
    const owed = await adminQuery(`SELECT id FROM ${schema}.adcp_webhook_outbox`);
    const owedKeys = new Set(owed.rows.map((r: { id: string }) => r.id));
    const receivedKeys = new Set(deliveries.map((d) => d.key));
    assert.deepEqual(
      [...owedKeys].filter((k) => !receivedKeys.has(k)),
      [],
      'every owed webhook arrived',
    );
    assert.deepEqual(
      [...receivedKeys].filter((k) => !owedKeys.has(k)),
      [],
      'nothing arrived that was not owed',
    );
    // Each operation's completed task reported `completed` once (after dedup), under its operation_id.
    const unique = new Map(deliveries.map((d) => [d.key, d]));
    for (const d of done) {
      const completed = [...unique.values()].filter((u) => u.taskId === d.taskId && u.status === 'completed');
      assert.equal(completed.length, 1, `one completed webhook for operation ${d.operationId}`);
      assert.equal(completed[0]?.operationId, d.operationId);
    }
    // Each task failed because its instance died reported `failed` to its buyer.
    const failedTasks = await adminQuery(
      `SELECT task_id FROM ${schema}.adcp_server_tasks WHERE kind = 'adcp' AND status = 'failed'`,
    );
    for (const { task_id: taskId } of failedTasks.rows as { task_id: string }[]) {
      assert.ok(
        [...unique.values()].some((u) => u.taskId === taskId && u.status === 'failed'),
        `a failed webhook for ${taskId}`,
      );
    }
    const abandoned = done.reduce((n, d) => n + d.abandoned, 0);
    assert.ok(abandoned > 0, 'the kill caught work in progress (the case under test)');
    // Each failed task was one a buyer saw fail and retried, or one whose answer died with its
    // instance (the task was made, the reply never sent; the retry ran the work again after the
    // key's lease lapsed): no more of those than sends answered with no task.
    const lost = done.reduce((n, d) => n + d.lost, 0);
    const failed = failedTasks.rows.length;
    assert.ok(abandoned <= failed, `each abandoned task seen is failed (${abandoned} seen, ${failed} failed)`);
    assert.ok(
      failed <= abandoned + lost,
      `failed tasks ${failed} <= ${abandoned} seen + ${lost} sends answered with no task`,
    );
    const duplicates = deliveries.length - receivedKeys.size;
    console.log(
      `fleet SIGKILL run: ${OPERATIONS} operations in ${(operationsMs / 1000).toFixed(1)} s ` +
        `(killed at ${(killedAt / 1000).toFixed(1)} s, restarted at ${(restartedAt / 1000).toFixed(1)} s); ` +
        `${done.reduce((n, d) => n + d.sends, 0)} create_media_buy sends; ${abandoned} tasks abandoned by the ` +
        `dead instance and run again, ${lost} sends answered with no task; ${owedKeys.size} webhooks owed, ${receivedKeys.size} received after ` +
        `dedup, ${deliveries.length} raw deliveries (${duplicates} duplicates, deduped by idempotency_key)`,
    );
  });
});
