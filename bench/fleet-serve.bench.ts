// Seller fleet (issue 17): CPU per request of `adcp serve` instances for a get_products +
// create_media_buy mix (MCP 2026-07-28, stateless), through a round-robin forwarder on loopback:
// 1 and 3 instances on PostgreSQL, and 1 and 3 on SQLite (the control: nothing shared), in the
// same run. Targets: an instance's CPU per request on PostgreSQL <= 1.5x on SQLite; 3 instances
// >= 0.9x the capacity of one, by CPU per request (bench/pg.bench.ts's method: capacity = 2 cores
// / total CPU per request). BENCH_FLEET_ONLY=<regex> runs only the scenarios it matches.
// Uses a private throwaway cluster (scripts/pg-start.sh), stopped at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { mediaBuyRequest, packageRequest } from '../src/seller/sample-requests.js';
import { startTestCluster } from '../test/pg/pg-cluster.js';
import { startForwarder } from '../test/pg/fleet/forwarder.js';
import { spawnServe, type ServeProcess } from '../test/interop/helpers/spawn-serve.js';
import { cpuMsOf, postgresCpuMs } from './proc-cpu.js';

const REQUESTS = Number(process.env.BENCH_FLEET_REQUESTS ?? 1500);
// Per instance process, as bench/pg.bench.ts warms each receiver: V8 needs thousands of calls to
// reach steady state, and with 1,500 the one instance was measured on its calls 1,500-3,000 while
// each of three was measured on its calls 1,500-2,000 (less warm), which counted JIT warm-up
// against the fleet.
const WARMUP_PER_INSTANCE = Number(process.env.BENCH_FLEET_WARMUP ?? 3000);
const CONCURRENCY = 16;
// PostgreSQL connections per scenario, split among its instances (`--store-connections`), as
// bench/pg.bench.ts splits its pool among the receivers: one instance keeps the default 10,
// each of three 4. Three default pools would hold 30 backends busy for the same 16 calls in
// flight, and PostgreSQL's CPU per call grows with its busy backends on 2 cores.
const PG_CONNECTIONS = 10;
const ROUNDS = Number(process.env.BENCH_FLEET_ROUNDS ?? 5);
// Buyers: the task store allows 120 new tasks per principal and minute, idempotency 60 writes/s;
// 200 keep a quiet run at 400 calls/s (200 media buys/s, 60 per buyer and minute) well under both.
const PRINCIPALS = 200;
// The reference seller completes a media buy 2 s after it is made: the CPU of that is counted.
const SETTLE_MS = 2_500;
const MODERN = '2026-07-28';

type Scenario = { name: string; store: 'sqlite' | 'postgres' | 'floor'; instances: number };
const SCENARIOS = (
  [
    // The control: the same instances with nothing shared (each its own SQLite file), so what 3
    // processes on 2 cores cost by themselves shows next to what the fleet's shared store costs.
    // Each 1-vs-3 pair runs back to back (the order is reversed every other round).
    { name: 'SQLite, 3 instances', store: 'sqlite', instances: 3 },
    { name: 'SQLite, 1 instance', store: 'sqlite', instances: 1 },
    { name: 'PostgreSQL, 1 instance', store: 'postgres', instances: 1 },
    { name: 'PostgreSQL, 3 instances', store: 'postgres', instances: 3 },
    // The floor: no AdCP at all. A bare node:http server per instance that answers each call after
    // FLOOR_QUERIES trivial statements in series on its own pool (the fleet's statements per call,
    // bench/results/fleet.md), so what three processes waiting on PostgreSQL mid-call cost on 2
    // cores shows without any code of ours.
    { name: 'Floor on PostgreSQL, 1 instance', store: 'floor', instances: 1 },
    { name: 'Floor on PostgreSQL, 3 instances', store: 'floor', instances: 3 },
  ] satisfies Scenario[] as Scenario[]
).filter((s) => new RegExp(process.env.BENCH_FLEET_ONLY ?? '.').test(s.name));

// Statements per call of the fleet on PostgreSQL, counted with pg_stat_statements over 3,000
// calls (bench/results/fleet.md, stop 17): 5.5, so the floor alternates 5 and 6.
const FLOOR_QUERIES = [5, 6];
// A bare server: each POST waits for its statements in series (SELECT $1, one round trip each),
// then answers a JSON-RPC result. Prints its port once listening; ends on SIGTERM.
const FLOOR_SERVER = `
import { createServer } from 'node:http';
import pg from 'pg';
const pool = new pg.Pool({ connectionString: process.env.FLOOR_PG_URL, max: Number(process.env.FLOOR_PG_MAX) });
const counts = ${JSON.stringify(FLOOR_QUERIES)};
let n = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const count = counts[n++ % counts.length];
    for (let i = 0; i < count; i += 1) await pool.query('SELECT $1::int AS n', [i]);
    const body = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [], structuredContent: {} } });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => { server.close(); server.closeAllConnections(); void pool.end(); });
`;

/** The floor's bare server, on `url` with `max` connections. */
async function startFloorInstance(
  url: string,
  max: number,
): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_SERVER], {
    cwd: process.cwd(),
    env: { ...process.env, FLOOR_PG_URL: url, FLOOR_PG_MAX: String(max) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('floor server did not start in 30 s')), 30_000);
    child.stdout?.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(Number(chunk.toString('utf8').trim()));
    });
    child.once('exit', (code) => reject(new Error(`floor server exited (${code})`)));
  });
  return {
    child,
    port,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

const tokens = Array.from({ length: PRINCIPALS }, (_, i) => ({ token: randomBytes(16).toString('hex'), who: `b${i}` }));
const serveTokens = tokens.map((t) => `${t.token}=${t.who}`).join(',');

/** `adcp serve` with the bench's buyers' tokens; its port is the one the forwarder targets. */
async function startInstance(args: string[]): Promise<ServeProcess & { port: number }> {
  const served = await spawnServe(args, { env: { ADCP_SERVE_TOKENS: serveTokens }, startMs: 120_000 });
  return { ...served, port: Number(new URL(served.url).port) };
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One tools/call on the 2026-07-28 era; resolves to whether the answer was a success. */
function call(port: number, i: number): Promise<boolean> {
  const buyer = tokens[i % tokens.length] as { token: string };
  const [name, args] =
    i % 2 === 0
      ? ['get_products', { buying_mode: 'brief', brief: 'coffee lovers on CTV' }]
      : ['create_media_buy', { ...mediaBuyRequest([packageRequest('olv_pets', 5)]), idempotency_key: randomUUID() }];
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': name,
          authorization: `Bearer ${buyer.token}`,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve(res.statusCode === 200 && text.includes('"result"') && !text.includes('"isError":true')),
        );
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

async function drive(port: number, count: number, offset: number): Promise<{ failed: number }> {
  let next = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      if (!(await call(port, offset + i))) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { failed };
}

interface Figures {
  perSecond: number[];
  failed: number;
  /** Per run, in round order (one run per round). */
  cpu: { client: number; instances: number; postgres: number }[];
}

const cluster = await startTestCluster();
const admin = new pg.Client({ connectionString: cluster.url });
await admin.connect();
const dir = mkdtempSync(join(tmpdir(), 'adcp-bench-fleet-'));
const results = new Map<string, Figures>(SCENARIOS.map((s) => [s.name, { perSecond: [], failed: 0, cpu: [] }]));
let run = 0;
let offset = 0;
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const scenario of round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()) {
      run += 1;
      let storeArgs: string[] = [];
      if (scenario.store === 'postgres') {
        const schema = `fleet_${run}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        const url = new URL(cluster.url);
        url.searchParams.set('options', `-c search_path=${schema}`);
        storeArgs = ['--store-url', url.toString()];
      }
      const instances: { child: ChildProcess; port: number; stop(): Promise<void> }[] = [];
      for (let i = 0; i < scenario.instances; i += 1) {
        if (scenario.store === 'floor') {
          instances.push(await startFloorInstance(cluster.url, Math.ceil(PG_CONNECTIONS / scenario.instances)));
          continue;
        }
        // All of an instance's state in one store: a SQLite file, or PostgreSQL (--db is then unused).
        const args =
          scenario.store === 'postgres'
            ? [...storeArgs, '--store-connections', String(Math.ceil(PG_CONNECTIONS / scenario.instances))]
            : ['--db', join(dir, `seller-${run}-${i}.db`)];
        instances.push(await startInstance(args));
      }
      const forwarder = await startForwarder(instances.map((instance) => instance.port));
      const port = Number(new URL(forwarder.url).port);
      const figures = results.get(scenario.name) as Figures;
      try {
        await drive(port, WARMUP_PER_INSTANCE * scenario.instances, offset);
        offset += WARMUP_PER_INSTANCE * scenario.instances;
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const instanceCpu = () => instances.reduce((sum, instance) => sum + cpuMsOf(instance.child.pid ?? 0), 0);
        const before = {
          client: process.cpuUsage(),
          instances: instanceCpu(),
          postgres: postgresCpuMs(cluster.dataDir),
        };
        const started = performance.now();
        const { failed } = await drive(port, REQUESTS, offset);
        offset += REQUESTS;
        const seconds = (performance.now() - started) / 1000;
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const client = process.cpuUsage(before.client);
        figures.perSecond.push(REQUESTS / seconds);
        figures.failed += failed;
        figures.cpu.push({
          client: (client.user + client.system) / 1000 / REQUESTS,
          instances: (instanceCpu() - before.instances) / REQUESTS,
          postgres: (postgresCpuMs(cluster.dataDir) - before.postgres) / REQUESTS,
        });
      } finally {
        await forwarder.close();
        await Promise.all(instances.map((instance) => instance.stop()));
      }
    }
  }
} finally {
  agent.destroy();
  await admin.end();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const lines: string[] = [];
lines.push('## Seller fleet: adcp serve on SQLite and PostgreSQL, 1 and 3 instances (bench/fleet-serve.bench.ts)', '');
lines.push(
  `${REQUESTS} MCP 2026-07-28 tools/call per run, get_products and create_media_buy alternated (each media buy ` +
    `completes 2 s later: that work is counted), ${PRINCIPALS} bearer-token buyers, ${CONCURRENCY} in flight, ` +
    `after ${WARMUP_PER_INSTANCE} warm-up calls per instance, through a round-robin forwarder on loopback; ` +
    `PostgreSQL connections ${PG_CONNECTIONS} per scenario, split among its instances. ` +
    `Median of ${ROUNDS} runs per row (each CPU column its own median), scenario order alternated. CPU from /proc, ` +
    `${SETTLE_MS} ms after the last answer. Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (2 cores, shared).`,
  '',
);
lines.push(
  '| store, instances | calls/s | failed | CPU ms/call: load generator+forwarder | instances | PostgreSQL | total | capacity on 2 idle cores | all runs (calls/s) |',
);
lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|');
type Cpu = { instances: number; postgres: number; total: number };
const cpuOf = new Map<string, Cpu>();
for (const scenario of SCENARIOS) {
  const f = results.get(scenario.name) as Figures;
  const cpu = {
    client: median(f.cpu.map((c) => c.client)),
    instances: median(f.cpu.map((c) => c.instances)),
    postgres: median(f.cpu.map((c) => c.postgres)),
  };
  const total = cpu.client + cpu.instances + (scenario.store !== 'sqlite' ? cpu.postgres : 0);
  cpuOf.set(scenario.name, { instances: cpu.instances, postgres: cpu.postgres, total });
  lines.push(
    `| ${scenario.name} | ${median(f.perSecond).toFixed(0)} | ${f.failed} | ${cpu.client.toFixed(2)} | ${cpu.instances.toFixed(2)} | ` +
      `${scenario.store !== 'sqlite' ? cpu.postgres.toFixed(2) : '-'} | ${total.toFixed(2)} | ${(2000 / total).toFixed(0)} | ` +
      `${f.perSecond.map((r) => r.toFixed(0)).join(', ')} |`,
  );
}
const rate = (name: string) => median((results.get(name) as Figures).perSecond);
// The same ratio per round (the 1- and 3-instance runs of a round are next to each other, so they
// saw the same load from the rest of the machine): its median and spread.
const totalOf = (name: string, round: number) => {
  const c = (results.get(name) as Figures).cpu[round] as Figures['cpu'][number];
  return c.client + c.instances + (name.startsWith('SQLite') ? 0 : c.postgres);
};
/** 3 instances vs 1 of `store`: by CPU capacity, measured rate, and per round. */
const fleetRatio = (store: string) => {
  const one = `${store}, 1 instance`;
  const three = `${store}, 3 instances`;
  const perRound = Array.from({ length: ROUNDS }, (_, round) => totalOf(one, round) / totalOf(three, round));
  return (
    `by CPU capacity **${((cpuOf.get(one) as Cpu).total / (cpuOf.get(three) as Cpu).total).toFixed(2)}x**, ` +
    `measured rate ${(rate(three) / rate(one)).toFixed(2)}x; ` +
    `per round (1 and 3 instances of the same round) median ${median(perRound).toFixed(2)}x, ` +
    `runs ${perRound.map((r) => r.toFixed(2)).join(', ')}`
  );
};
const sqlite = cpuOf.get('SQLite, 1 instance');
const pg1 = cpuOf.get('PostgreSQL, 1 instance');
lines.push('');
if (sqlite !== undefined && pg1 !== undefined) {
  lines.push(
    `- instance CPU per call, PostgreSQL vs SQLite (target <= 1.5x): **${(pg1.instances / sqlite.instances).toFixed(2)}x** ` +
      `(${pg1.instances.toFixed(2)} vs ${sqlite.instances.toFixed(2)} ms; with the PostgreSQL server's own CPU ` +
      `${((pg1.instances + pg1.postgres) / sqlite.instances).toFixed(2)}x)`,
  );
}
if (pg1 !== undefined && cpuOf.has('PostgreSQL, 3 instances')) {
  lines.push(`- 3 instances vs 1, PostgreSQL (target >= 0.9x): ${fleetRatio('PostgreSQL')}`);
}
if (cpuOf.has('Floor on PostgreSQL, 1 instance') && cpuOf.has('Floor on PostgreSQL, 3 instances')) {
  lines.push(
    `- the floor, 3 bare servers vs 1 that only wait on PostgreSQL (${FLOOR_QUERIES.join(' and ')} statements per call, ` +
      `alternately; no AdCP, no code of ours): ${fleetRatio('Floor on PostgreSQL')}`,
  );
}
if (sqlite !== undefined && cpuOf.has('SQLite, 3 instances')) {
  lines.push(
    `- the control, 3 instances vs 1 with nothing shared (each its own SQLite file; no target): ${fleetRatio('SQLite')}`,
  );
}
lines.push('');
console.log(lines.join('\n'));
