// Webhook receiving on PostgreSQL: throughput and p99 of signed deliveries through a
// round-robin forwarder to 1 and 3 receiver processes (createWebhookHandler, PostgreSQL dedup
// and operation stores), beside 1 receiver on the embedded SQLite store, in the same run.
// Targets (issue 7): 3 processes >= 0.9x of one; PostgreSQL >= 1/3 of SQLite. CPU time per
// delivery of each component (sender+forwarder, receivers, PostgreSQL server) says what bounds
// each figure. Uses a private throwaway cluster (scripts/pg-start.sh), stopped at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestCluster } from '../test/pg/pg-cluster.js';
import { startForwarder } from '../test/pg/fleet/forwarder.js';
import { spawnReceiver, type ReceiverProcess } from '../test/pg/fleet/spawn-receiver.js';
import { deliverAll, makeEvents, percentile } from '../test/pg/fleet/deliveries.js';
import { cpuMsOf, postgresCpuMs } from './proc-cpu.js';

const OPERATIONS = Number(process.env.BENCH_PG_OPERATIONS ?? 1250); // x4 events
// x4 deliveries per receiver process: V8 needs thousands of requests to reach steady state, and
// a fleet measured cold pays each process's JIT warm-up (it cost 3 receivers ~0.1 ms/delivery).
const WARMUP_OPERATIONS_PER_RECEIVER = Number(process.env.BENCH_PG_WARMUP ?? 2000);
const CONCURRENCY = 32;
const CONNECTIONS = 24; // in total per scenario, so requests rarely queue for a connection at 32 in flight
const ROUNDS = 3;

// `handler: 'empty'` gives the receiver an async handler that does nothing: the dedup key is then
// completed in its own statement after it, where with no handler the claim's statement does it.
// `separate: true` hides PgDedupStore.claimAndAdvance: the statements before it, as a same-run baseline.
type Scenario = {
  name: string;
  store: 'sqlite' | 'postgres';
  receivers: number;
  handler: 'noop' | 'empty';
  separate?: boolean;
};
const SCENARIOS: Scenario[] = [
  { name: 'SQLite, 1 receiver', store: 'sqlite', receivers: 1, handler: 'noop' },
  { name: 'PostgreSQL, 1 receiver', store: 'postgres', receivers: 1, handler: 'noop' },
  { name: 'PostgreSQL, 3 receivers', store: 'postgres', receivers: 3, handler: 'noop' },
  { name: 'SQLite, 1 receiver, empty handler', store: 'sqlite', receivers: 1, handler: 'empty' },
  { name: 'PostgreSQL, 1 receiver, empty handler', store: 'postgres', receivers: 1, handler: 'empty' },
  { name: 'PostgreSQL, 1 receiver, separate calls', store: 'postgres', receivers: 1, handler: 'noop', separate: true },
];

interface Figures {
  perSecond: number[];
  p50: number[];
  p99: number[];
  cpu: { sender: number; receivers: number; postgres: number }[];
}

const cluster = await startTestCluster();
const sqliteDir = mkdtempSync(join(tmpdir(), 'adcp-bench-sqlite-'));
const results = new Map<string, Figures>(SCENARIOS.map((s) => [s.name, { perSecond: [], p50: [], p99: [], cpu: [] }]));
let run = 0;
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const scenario of round % 2 === 0 ? SCENARIOS : [...SCENARIOS].reverse()) {
      run += 1;
      const storeUrl = scenario.store === 'postgres' ? cluster.url : join(sqliteDir, `state-${run}.db`);
      const schema = scenario.store === 'postgres' ? `bench_${run}` : '';
      const receivers: ReceiverProcess[] = [];
      for (let i = 0; i < scenario.receivers; i += 1) {
        // One at a time, so concurrent first migrations do not matter to the figures.
        // The fleet shares the same total of PostgreSQL connections as the single receiver.
        receivers.push(
          await spawnReceiver({
            FLEET_STORE_URL: storeUrl,
            FLEET_SCHEMA: schema,
            FLEET_RECEIVER: `b${i}`,
            FLEET_HANDLER: scenario.handler,
            FLEET_SEPARATE_CALLS: scenario.separate === true ? '1' : '0',
            FLEET_MAX_CONNECTIONS: String(Math.ceil(CONNECTIONS / scenario.receivers)),
          }),
        );
      }
      const forwarder = await startForwarder(receivers.map((r) => r.port));
      const url = `${forwarder.url}/webhooks`;
      try {
        await deliverAll(makeEvents(WARMUP_OPERATIONS_PER_RECEIVER * scenario.receivers), {
          url,
          concurrency: CONCURRENCY,
          copies: 1,
        });
        const events = makeEvents(OPERATIONS);
        const cpuBefore = {
          sender: process.cpuUsage(),
          receivers: receivers.reduce((sum, r) => sum + cpuMsOf(r.child.pid ?? 0), 0),
          postgres: postgresCpuMs(cluster.dataDir),
        };
        const started = performance.now();
        const stats = await deliverAll(events, { url, concurrency: CONCURRENCY, copies: 1, seed: run });
        const seconds = (performance.now() - started) / 1000;
        const sender = process.cpuUsage(cpuBefore.sender);
        const n = stats.deliveries;
        const figures = results.get(scenario.name) as Figures;
        figures.perSecond.push(n / seconds);
        figures.p50.push(percentile(stats.latenciesMs, 50));
        figures.p99.push(percentile(stats.latenciesMs, 99));
        figures.cpu.push({
          sender: (sender.user + sender.system) / 1000 / n,
          receivers: (receivers.reduce((sum, r) => sum + cpuMsOf(r.child.pid ?? 0), 0) - cpuBefore.receivers) / n,
          postgres: (postgresCpuMs(cluster.dataDir) - cpuBefore.postgres) / n,
        });
      } finally {
        await forwarder.close();
        await Promise.all(receivers.map((r) => r.stop()));
      }
    }
  }
} finally {
  await cluster.stop();
  rmSync(sqliteDir, { recursive: true, force: true });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const best = (name: string) => median((results.get(name) as Figures).perSecond);
const sqlite = best('SQLite, 1 receiver');
const pg1 = best('PostgreSQL, 1 receiver');
const pg3 = best('PostgreSQL, 3 receivers');

const lines: string[] = [];
lines.push('## PostgreSQL webhook receiving (bench/pg.bench.ts)', '');
lines.push(
  `${OPERATIONS * 4} unique HMAC-signed deliveries per run (MCP envelopes, operations advanced), ${CONCURRENCY} in flight, ` +
    `after ${WARMUP_OPERATIONS_PER_RECEIVER * 4} warm-up deliveries per receiver process, ` +
    `through a round-robin forwarder on loopback; PostgreSQL pools: ${CONNECTIONS} connections in total per scenario. ` +
    `Median of ${ROUNDS} runs per row (all runs: deliveries/s), scenario order alternated. ` +
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (2 cores, shared).`,
  '',
);
lines.push(
  '| store, receivers | deliveries/s | p50 ms | p99 ms | CPU ms/delivery: sender+forwarder | receivers | PostgreSQL | total | capacity on 2 idle cores | all runs |',
);
lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
const capacity = new Map<string, number>();
for (const scenario of SCENARIOS) {
  const f = results.get(scenario.name) as Figures;
  const cpu = {
    sender: mean(f.cpu.map((c) => c.sender)),
    receivers: mean(f.cpu.map((c) => c.receivers)),
    postgres: mean(f.cpu.map((c) => c.postgres)),
  };
  const total = cpu.sender + cpu.receivers + cpu.postgres;
  capacity.set(scenario.name, 2000 / total);
  lines.push(
    `| ${scenario.name} | ${median(f.perSecond).toFixed(0)} | ${median(f.p50).toFixed(1)} | ${median(f.p99).toFixed(1)} | ` +
      `${cpu.sender.toFixed(2)} | ${cpu.receivers.toFixed(2)} | ${cpu.postgres.toFixed(2)} | ${total.toFixed(2)} | ` +
      `${(2000 / total).toFixed(0)} | ${f.perSecond.map((r) => r.toFixed(0)).join(', ')} |`,
  );
}
const cap = (name: string) => capacity.get(name) ?? 0;
const capPg1 = cap('PostgreSQL, 1 receiver');
const capRatio3 = cap('PostgreSQL, 3 receivers') / capPg1;
const capRatioSqlite = capPg1 / cap('SQLite, 1 receiver');
lines.push('');
lines.push(
  "Capacity on 2 idle cores = 2 cores / total CPU per delivery: the rate the same work would reach with the machine to itself (measured rates move with the rest of the machine's load; CPU per delivery much less).",
);
lines.push('');
lines.push(
  `- 3 receivers vs 1 (target >= 0.9x): measured **${(pg3 / pg1).toFixed(2)}x**, by CPU capacity **${capRatio3.toFixed(2)}x** (${capRatio3 >= 0.9 ? 'met' : 'NOT met'})`,
);
lines.push(
  `- PostgreSQL vs SQLite, 1 receiver (target >= 0.33x): measured **${(pg1 / sqlite).toFixed(2)}x**, by CPU capacity **${capRatioSqlite.toFixed(2)}x** (${capRatioSqlite >= 1 / 3 ? 'met' : 'NOT met'})`,
);
const capRatioHandler = cap('PostgreSQL, 1 receiver, empty handler') / cap('SQLite, 1 receiver, empty handler');
lines.push(
  `- the same with an empty handler (target >= 0.33x): measured **${(best('PostgreSQL, 1 receiver, empty handler') / best('SQLite, 1 receiver, empty handler')).toFixed(2)}x**, ` +
    `by CPU capacity **${capRatioHandler.toFixed(2)}x** (${capRatioHandler >= 1 / 3 ? 'met' : 'NOT met'})`,
);
lines.push(
  `- PostgreSQL, 1 receiver, separate calls (the path before claimAndAdvance) vs SQLite: measured **${(best('PostgreSQL, 1 receiver, separate calls') / sqlite).toFixed(2)}x**, ` +
    `by CPU capacity **${(cap('PostgreSQL, 1 receiver, separate calls') / cap('SQLite, 1 receiver')).toFixed(2)}x**`,
);
lines.push('');
console.log(lines.join('\n'));
