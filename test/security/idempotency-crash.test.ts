// test-timeout-ms: 300000
// The crash guarantee of docs/server.md, "Idempotency and crashes": `adcp serve` is SIGKILLed after
// create_media_buy's side effect (task stored, media buy being made) and before its answer was
// stored under the idempotency_key. A retry while the claim is held is not run
// (IDEMPOTENCY_IN_FLIGHT, transient); restarted on the same SQLite file, a retry runs again once
// the dead claim's lease lapsed, and the buyer ends with exactly one media buy (the reference seller derives the
// media buy from the key); a further retry replays.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { killChild as kill, spawnServe, type ServeProcess } from '../interop/helpers/spawn-serve.js';

/** The dead claim's lease: the default request timeout (30 s) plus 5 s. */
const LEASE_MS = 35_000;

type Json = Record<string, unknown>;

const serve = (db: string): Promise<ServeProcess> => spawnServe(['--db', db], { env: { ADCP_SELLER_TEST_HOOKS: '1' } });

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'crash-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const call = async (client: Client, name: string, args: Json) => {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as Json;
  return result.structuredContent as Json;
};

async function mediaBuys(client: Client): Promise<string[]> {
  const body = await call(client, 'get_media_buy_delivery', {});
  return ((body.media_buy_deliveries as Json[] | undefined) ?? []).map((d) => String(d.media_buy_id));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (let i = 0; i < 600 && Date.now() < deadline; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('adcp serve SIGKILLed between a side effect and its stored answer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-idem-crash-'));
  const db = join(dir, 'seller.db');
  const running: ChildProcess[] = [];
  const clients: Client[] = [];
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    for (const child of running) await kill(child);
    rmSync(dir, { recursive: true, force: true });
  });

  it('never runs the key twice at once, runs it again after the lease, and buys once', async () => {
    const key = randomUUID();
    const request = { ...mediaBuyRequest([packageRequest('ctv_premium_sports', 5000)]), idempotency_key: key };

    const first = await serve(db);
    running.push(first.child);
    const held = await connect(first.mcp, { 'x-adcp-fail': 'HOLD_AFTER_EFFECT' });
    const reader = await connect(first.mcp);
    clients.push(held, reader);
    const claimedAt = Date.now();
    const pending = call(held, 'create_media_buy', request).catch((e: unknown) => e);
    // The side effect happened: the media buy exists, its answer is held (never stored).
    const [made] = await until('the first media buy', async () => {
      const ids = await mediaBuys(reader);
      return ids.length > 0 ? ids : undefined;
    });
    // While the first run holds the key: a retry is not run, it is told to come back (rule 9).
    const early = await call(reader, 'create_media_buy', request);
    const error = early.adcp_error as Json;
    assert.equal(error.code, 'IDEMPOTENCY_IN_FLIGHT');
    assert.equal(error.recovery, 'transient');
    assert.ok(Number(error.retry_after) >= 1);
    assert.deepEqual(await mediaBuys(reader), [made]);
    await kill(first.child);
    // The held request never got its answer: it died with the process, or (on a loaded machine,
    // past the agent's 30 s request timeout) it was told the agent timed out, transient.
    const died = await pending;
    const timedOut = !(died instanceof Error) && ((died as Json).adcp_error as Json | undefined)?.code;
    assert.ok(
      died instanceof Error || timedOut === 'SERVICE_UNAVAILABLE',
      `the held request died with the process: ${JSON.stringify(died)}`,
    );

    const second = await serve(db);
    running.push(second.child);
    const buyer = await connect(second.mcp);
    clients.push(buyer);
    await new Promise((r) => setTimeout(r, Math.max(0, claimedAt + LEASE_MS + 1_000 - Date.now())));
    const rerun = await call(buyer, 'create_media_buy', request);
    assert.equal(rerun.status, 'submitted', JSON.stringify(rerun.adcp_error));
    assert.notEqual(rerun.replayed, true);
    await until('the rerun to finish', async () => {
      const task = await call(buyer, 'get_task_status', { task_id: String(rerun.task_id) });
      return task.status === 'completed' ? task : undefined;
    });
    assert.deepEqual(await mediaBuys(buyer), [made], 'one media buy: the rerun rewrote the same one');
    const replay = await call(buyer, 'create_media_buy', request);
    assert.equal(replay.replayed, true);
    assert.equal(replay.task_id, rerun.task_id);
  });
});
