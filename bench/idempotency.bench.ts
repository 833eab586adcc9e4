// Idempotency benchmarks (issue 12): on a SQLite replay store, (1) a replay against a plain call of
// the same read tool, (2) a mutating call with a fresh key against the same tool with idempotency
// off. Real createAdcpServer in a worker thread, the official MCP client in the main thread,
// calls interleaved one by one. Then, in a phase of their own (the headline's phase is unchanged),
// two floors for (2), no target: the layer over an in-memory store (no durable write), and the same
// plus two trivial SQLite commits per call (a one-integer INSERT at the claim and at the answer, in
// a file opened like the store's). Prints one Markdown section.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

const CALLS = 1000;
const WARMUP = 200;

if (!isMainThread) {
  const { createAdcpServer } = await import('../src/server/create-adcp-server.js');
  const { SqliteIdempotencyStore } = await import('../src/store/sqlite-idempotency-store.js');
  const { MemoryIdempotencyStore } = await import('../src/store/memory-idempotency-store.js');
  const { openSqliteDatabase } = await import('../src/store/sqlite-database.js');
  type Store = import('../src/store/idempotency-store.js').IdempotencyStore;
  const dir = mkdtempSync(join(tmpdir(), 'adcp-bench-idem-'));
  const products = {
    products: [
      { product_id: 'p1', name: 'CTV' },
      { product_id: 'p2', name: 'Audio' },
    ],
  };
  const buy = () => ({ media_buy_id: 'mb_1', packages: [{ package_id: 'pkg_1', budget: 5000 }] });
  // The insert budgets are lifted: this measures the store, not the limiter's refusals.
  const lifted = { sustained: 1e6, burst: 1e6 };
  // The floor: the in-memory store's answers, plus a trivial durable commit at the claim and at the
  // answer in a SQLite file with the store's settings (WAL, synchronous = NORMAL).
  const twoCommits = (): Store => {
    const memory = new MemoryIdempotencyStore();
    const { db } = openSqliteDatabase({ path: join(dir, 'floor.db') });
    db.exec('CREATE TABLE floor (v INTEGER)');
    const insert = db.prepare<[number]>('INSERT INTO floor (v) VALUES (?)');
    return {
      claim: (scope, key, options) => (insert.run(1), memory.claim(scope, key, options)),
      complete: (scope, key, token, options) => (insert.run(2), memory.complete(scope, key, token, options)),
      release: (scope, key, token) => memory.release(scope, key, token),
      reclaim: (scope, key, token, options) => memory.reclaim(scope, key, token, options),
      sweep: (now, options) => memory.sweep(now, options),
      close: async () => {
        db.close();
      },
    };
  };
  const start = (mutating: boolean, store: Store) =>
    createAdcpServer({
      tools: [
        { name: 'get_products', description: 'p', handler: () => products },
        { name: 'create_media_buy', description: 'b', mutating, handler: buy },
      ],
      validateRequests: false,
      idempotency: { store, insertLimits: { writes: lifted, reads: lifted, combined: lifted } },
    }).listen();
  const sqlite = (name: string) => new SqliteIdempotencyStore({ path: join(dir, `keys-${name}.db`) });
  const servers = await Promise.all([
    start(true, sqlite('true')),
    start(false, sqlite('false')),
    start(true, new MemoryIdempotencyStore()),
    start(true, twoCommits()),
  ]);
  const [on, off, memory, floor] = servers.map((server) => server.mcpUrl);
  parentPort?.postMessage({ on, off, memory, floor });
  parentPort?.once('message', () => {
    void Promise.all(servers.map((server) => server.close())).then(() => rmSync(dir, { recursive: true, force: true }));
  });
} else {
  await main();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const entry = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${entry}); })`, {
    eval: true,
  });
  const urls = await new Promise<{ on: string; off: string; memory: string; floor: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const connect = async (url: string) => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };
  const on = await connect(urls.on);
  const off = await connect(urls.off);
  const memory = await connect(urls.memory);
  const floor = await connect(urls.floor);
  const load = loadavg()[0]!.toFixed(1);
  const args = { buying_mode: 'brief', brief: 'CTV for pet owners', brand: { domain: 'example.com' } };
  const replayKey = randomUUID();
  const expect = (result: unknown, replayed: boolean) => {
    const body = (result as { structuredContent?: Record<string, unknown> }).structuredContent;
    if (body === undefined || body.status !== 'completed' || (body.replayed === true) !== replayed) {
      throw new Error(`unexpected answer ${JSON.stringify(body)}`);
    }
  };
  const calls = {
    plainRead: async () => expect(await on.callTool({ name: 'get_products', arguments: args }), false),
    replay: async () =>
      expect(await on.callTool({ name: 'get_products', arguments: { ...args, idempotency_key: replayKey } }), true),
    withKey: async () =>
      expect(
        await on.callTool({ name: 'create_media_buy', arguments: { ...args, idempotency_key: randomUUID() } }),
        false,
      ),
    withoutKey: async () => expect(await off.callTool({ name: 'create_media_buy', arguments: args }), false),
    floorWithoutKey: async () => expect(await off.callTool({ name: 'create_media_buy', arguments: args }), false),
    memoryStore: async () =>
      expect(
        await memory.callTool({ name: 'create_media_buy', arguments: { ...args, idempotency_key: randomUUID() } }),
        false,
      ),
    twoCommits: async () =>
      expect(
        await floor.callTool({ name: 'create_media_buy', arguments: { ...args, idempotency_key: randomUUID() } }),
        false,
      ),
  };
  await on.callTool({ name: 'get_products', arguments: { ...args, idempotency_key: replayKey } }); // stores it
  const samples: Record<keyof typeof calls, number[]> = {
    plainRead: [],
    replay: [],
    withKey: [],
    withoutKey: [],
    floorWithoutKey: [],
    memoryStore: [],
    twoCommits: [],
  };
  for (const [a, b] of [
    ['plainRead', 'replay'],
    ['withoutKey', 'withKey'],
  ] as const) {
    for (let i = 0; i < WARMUP; i += 1) {
      await calls[a]();
      await calls[b]();
    }
    for (let i = 0; i < CALLS; i += 1) {
      for (const name of i % 2 === 0 ? [a, b] : [b, a]) {
        const t0 = performance.now();
        await calls[name]();
        samples[name].push(performance.now() - t0);
      }
    }
  }
  // The floors' phase: the three kinds rotated one by one (the order turns each call).
  const floors = ['floorWithoutKey', 'memoryStore', 'twoCommits'] as const;
  for (let i = 0; i < WARMUP; i += 1) for (const name of floors) await calls[name]();
  for (let i = 0; i < CALLS; i += 1) {
    for (let j = 0; j < floors.length; j += 1) {
      const name = floors[(i + j) % floors.length]!;
      const t0 = performance.now();
      await calls[name]();
      samples[name].push(performance.now() - t0);
    }
  }
  for (const client of [on, off, memory, floor]) await client.close();
  worker.postMessage('stop');
  await new Promise((r) => setTimeout(r, 200));
  await worker.terminate();

  const ms = (v: number) => v.toFixed(3);
  const replayRatio = median(samples.replay) / median(samples.plainRead);
  const mutatingRatio = median(samples.withKey) / median(samples.withoutKey);
  console.log(`## Idempotency (SQLite replay store)\n`);
  console.log(
    `${CALLS} calls each after ${WARMUP} warm-up, interleaved one by one, official MCP client over loopback, server (createAdcpServer, SQLite file) in a worker thread; the two floor rows come from a later phase of their own (its baseline, the keyed call over an in-memory store and over two trivial commits, rotated one by one), so their ratios are against that phase's baseline; load average ${load} at the start.\n`,
  );
  console.log('| measure | baseline median (ms) | measured median (ms) | ratio | target | met |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| replay (\`get_products\`, same key, from SQLite) vs a plain \`get_products\` | ${ms(median(samples.plainRead))} | ${ms(median(samples.replay))} | ${replayRatio.toFixed(2)}x | ≤ 1.20x | ${replayRatio <= 1.2 ? 'yes' : '**no**'} |`,
  );
  console.log(
    `| \`create_media_buy\` with a fresh key (claim + stored answer) vs the same tool without idempotency | ${ms(median(samples.withoutKey))} | ${ms(median(samples.withKey))} | ${mutatingRatio.toFixed(2)}x | ≤ 1.10x | ${mutatingRatio <= 1.1 ? 'yes' : '**no**'} |`,
  );
  const floorBase = median(samples.floorWithoutKey);
  const floorRow = (what: string, name: 'memoryStore' | 'twoCommits') =>
    console.log(
      `| floor, own phase: ${what} | ${ms(floorBase)} | ${ms(median(samples[name]))} | ${(median(samples[name]) / floorBase).toFixed(2)}x | - | - |`,
    );
  floorRow('the same keyed call over an in-memory store (no durable write)', 'memoryStore');
  floorRow(
    'the same, plus two trivial SQLite commits (a one-integer `INSERT` at the claim and at the answer, WAL, `synchronous = NORMAL`)',
    'twoCommits',
  );
}
