// Webhook receiver throughput: verified, de-duplicated, persisted webhooks per second and p99 on
// loopback, createWebhookHandler's node:http adapter (HMAC, then RFC 9421 Ed25519; SQLite dedup
// and one operation update per event) against the seed's minimal Express handler (HMAC only, no
// dedup), measured in the same run, in interleaved rounds. Every request carries its own idempotency key and signature,
// generated and serialised before the clock starts. The receiver runs in a child process; a small
// closed-loop generator (bench/fixtures/http-load.ts) drives it, so the client costs little CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { quantile, runLoad, serialise } from './fixtures/http-load.js';
import { replaceGeneratedBlock } from './fixtures/generated-block.js';
import Database from 'better-sqlite3';
import { signWebhookHmac } from '../src/webhooks/hmac.js';
import { signWebhookRequest, type WebhookSigningKey } from '../src/webhooks/sign-webhook-request.js';

const REQUESTS = Number(process.env.WEBHOOK_BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.WEBHOOK_BENCH_ROUNDS ?? 3);
const WARMUP = 3_000;
const CONNECTIONS = 32;
const TARGET_PER_SECOND = 5_000;
const SECRET = 'bench-secret-Qw8Lm2Vb5Nc7Zt1Ry4Hs6Pd0Fg3Aa9Ee';
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'adcp-webhook-bench-'));

type Mode = 'express' | 'hmac' | 'rfc9421' | 'rfc9421-compare';
// WEBHOOK_BENCH_COMPARE=<another checkout> adds its RFC 9421 receiver as a fourth row, in the same
// interleaved rounds: a before/after of a change on a machine too noisy for runs minutes apart.
const COMPARE = process.env.WEBHOOK_BENCH_COMPARE;
interface Prepared {
  path: string;
  headers: Record<string, string>;
  body: string;
}

const pair = generateKeyPairSync('ed25519');
const jwk = {
  ...pair.publicKey.export({ format: 'jwk' }),
  kid: 'bench-key',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
  alg: 'EdDSA',
};
const signingKey: WebhookSigningKey = { keyid: 'bench-key', alg: 'ed25519', privateKey: pair.privateKey };

function body(i: number, run: string): string {
  return JSON.stringify({
    idempotency_key: `whk_${run}_${i}_${randomUUID()}`,
    operation_id: `op_${run}_${i}`,
    task_id: `task_${i}`,
    task_type: 'create_media_buy',
    status: 'completed',
    timestamp: new Date().toISOString(),
    message: 'Media buy created',
    result: { media_buy_id: `mb_${i}`, packages: [{ package_id: 'pkg_1' }, { package_id: 'pkg_2' }] },
  });
}

function prepare(mode: Mode, port: number, count: number, run: string): Prepared[] {
  const out: Prepared[] = [];
  for (let i = 0; i < count; i += 1) {
    const b = body(i, run);
    const path = `/webhooks/adcp/create_media_buy/agent_1/op_${run}_${i}`;
    if (mode === 'rfc9421' || mode === 'rfc9421-compare') {
      out.push({
        path,
        body: b,
        headers: signWebhookRequest({ url: `http://127.0.0.1:${port}${path}`, body: b, key: signingKey }),
      });
    } else {
      out.push({
        path,
        body: b,
        headers: { 'content-type': 'application/json', ...signWebhookHmac({ secret: SECRET, rawBody: b }).headers },
      });
    }
  }
  return out;
}

async function startServer(mode: Mode, dbPath: string): Promise<{ child: ChildProcess; port: number }> {
  const script =
    mode === 'rfc9421-compare'
      ? join(COMPARE as string, 'bench', 'fixtures', 'webhooks-server.ts')
      : join(here, 'fixtures', 'webhooks-server.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, mode === 'rfc9421-compare' ? 'rfc9421' : mode, dbPath, SECRET, JSON.stringify(jwk)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const m = /ready (\d+)/.exec(chunk.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)));
  });
  return { child, port };
}

async function load(port: number, requests: Prepared[]) {
  return runLoad(port, serialise(requests, '127.0.0.1', port), CONNECTIONS);
}

interface Run {
  /** Receiver CPU µs per delivery, all threads / the event loop thread. */
  cpuAll: number;
  cpuMain: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  statuses: string;
}

/**
 * CPU time the receiver process has used, in µs: all its threads, and its main (event loop) thread
 * alone, from /proc (Linux; `undefined` elsewhere). CPU per webhook moves far less with the rest
 * of the machine's load than webhooks per second do.
 */
function processCpuMicros(pid: number | undefined): { all: number; main: number } | undefined {
  if (pid === undefined) return undefined;
  const ticks = (file: string): number => {
    const fields = readFileSync(file, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15 of stat)
  };
  try {
    const tick = 1e6 / 100; // USER_HZ
    return { all: ticks(`/proc/${pid}/stat`) * tick, main: ticks(`/proc/${pid}/task/${pid}/stat`) * tick };
  } catch {
    return undefined;
  }
}

async function measure(mode: Mode, port: number, round: number, pid: number | undefined): Promise<Run> {
  const requests = prepare(mode, port, REQUESTS, `r${round}${mode}`);
  const cpu0 = processCpuMicros(pid);
  const result = await load(port, requests);
  const cpu1 = processCpuMicros(pid);
  const ok = result.statuses[200] ?? 0;
  return {
    cpuAll: cpu0 && cpu1 ? (cpu1.all - cpu0.all) / REQUESTS : NaN,
    cpuMain: cpu0 && cpu1 ? (cpu1.main - cpu0.main) / REQUESTS : NaN,
    perSecond: ok / result.durationSeconds,
    p50: quantile(result.latenciesMs, 0.5),
    p99: quantile(result.latenciesMs, 0.99),
    non2xx: REQUESTS - ok,
    statuses: JSON.stringify(result.statuses),
  };
}

const median = (values: number[]): number => quantile(values, 0.5);

/**
 * The floor under any Ed25519 receiver: `crypto.verify` alone over signature-base-sized inputs,
 * synchronously (one core) and on the thread pool with 32 in flight (what the machine can verify
 * when nothing else runs). Medians of 5 batches of 4,000.
 */
async function cryptoFloor(): Promise<{ syncMicros: number; poolPerSecond: number }> {
  const items = Array.from({ length: 4_000 }, (_, i) => {
    const data = Buffer.from(
      `"@method": POST\n"@target-uri": http://127.0.0.1:1/webhooks/adcp/create_media_buy/agent_1/op_${i}\n` +
        `"@authority": 127.0.0.1:1\n"content-type": application/json\n"content-digest": sha-256=:${'A'.repeat(43)}=:\n` +
        `"@signature-params": ("@method" "@target-uri" "@authority" "content-type" "content-digest");created=1;expires=2;nonce="${'n'.repeat(22)}";keyid="bench-key";alg="ed25519";tag="adcp/webhook-signing/v1"`,
    );
    return { data, signature: cryptoSign(null, data, pair.privateKey) };
  });
  const sync: number[] = [];
  const pool: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    let t0 = performance.now();
    for (const item of items)
      if (!cryptoVerify(null, item.data, pair.publicKey, item.signature)) throw new Error('floor: bad signature');
    sync.push(((performance.now() - t0) * 1000) / items.length);
    t0 = performance.now();
    let next = 0;
    const one = (): Promise<void> =>
      new Promise((resolve, reject) => {
        const step = (): void => {
          const item = items[next++];
          if (item === undefined) return resolve();
          cryptoVerify(null, item.data, pair.publicKey, item.signature, (error, ok) =>
            error !== null || !ok ? reject(error ?? new Error('floor')) : step(),
          );
        };
        step();
      });
    await Promise.all(Array.from({ length: 32 }, one));
    pool.push(items.length / ((performance.now() - t0) / 1000));
  }
  return { syncMicros: median(sync), poolPerSecond: median(pool) };
}
const floorBefore = await cryptoFloor();
const MODES: Mode[] =
  COMPARE === undefined ? ['express', 'hmac', 'rfc9421'] : ['express', 'hmac', 'rfc9421', 'rfc9421-compare'];
const loadBefore = loadavg()
  .map((l) => l.toFixed(1))
  .join(' / ');
const servers = new Map<Mode, { child: ChildProcess; port: number; dbPath: string }>();
for (const mode of MODES) {
  const dbPath = join(dir, `${mode}.db`);
  const started = await startServer(mode, dbPath);
  servers.set(mode, { ...started, dbPath });
  await load(started.port, prepare(mode, started.port, WARMUP, `warm${mode}`));
}
// Rounds interleave the receivers, so a burst of load from the rest of the machine hits all of
// them alike; each row reports the median round.
const runs = new Map<Mode, Run[]>(MODES.map((m) => [m, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const mode of MODES) {
    const server = servers.get(mode) as { port: number; child: ChildProcess };
    runs.get(mode)?.push(await measure(mode, server.port, round, server.child.pid));
  }
}
const results = MODES.map((mode) => {
  const list = runs.get(mode) as Run[];
  let persisted: number | undefined;
  if (mode !== 'express') {
    const db = new Database((servers.get(mode) as { dbPath: string }).dbPath, { readonly: true });
    persisted =
      (db.prepare("SELECT COUNT(*) AS n FROM webhook_dedup WHERE state = 'done'").get() as { n: number }).n - WARMUP;
    db.close();
  }
  return {
    mode,
    perSecond: median(list.map((r) => r.perSecond)),
    rounds: list.map((r) => Math.round(r.perSecond)),
    p50: median(list.map((r) => r.p50)).toFixed(1),
    p99: median(list.map((r) => r.p99)).toFixed(1),
    cpuAll: median(list.map((r) => r.cpuAll)),
    cpuMain: median(list.map((r) => r.cpuMain)),
    non2xx: list.reduce((a, r) => a + r.non2xx, 0),
    statuses: list.map((r) => r.statuses).join(' '),
    persisted,
  };
});
for (const { child } of servers.values()) child.kill('SIGTERM');
const floorAfter = await cryptoFloor();
rmSync(dir, { recursive: true, force: true });

const baseline = results[0] as (typeof results)[number];
const label: Record<Mode, string> = {
  express: 'baseline: seed Express handler (HMAC only, no dedup, nothing persisted)',
  hmac: 'createWebhookHandler node adapter, HMAC + SQLite dedup + operation update',
  rfc9421: 'createWebhookHandler node adapter, RFC 9421 Ed25519 + SQLite dedup + operation update',
  'rfc9421-compare': `the same RFC 9421 receiver from ${COMPARE ?? ''}`,
};
const lines = [
  '## Webhook receiver (bench/webhooks.bench.ts)',
  '',
  `${ROUNDS} interleaved rounds of ${REQUESTS} distinct signed deliveries per receiver (after ${WARMUP} warm-up), ${CONNECTIONS} keep-alive connections, loopback, each receiver in its own process; medians of the rounds. ${new Date().toISOString()}, node ${process.version}, load average before the run ${loadBefore} (2 cores, shared with the rest of the team).`,
  '',
  '| receiver | verified webhooks/s (median) | rounds | vs baseline | p50 ms | p99 ms | receiver CPU µs per webhook: all threads / event loop | non-2xx | persisted (dedup rows done) |',
  '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ...results.map(
    (r) =>
      `| ${label[r.mode]} | ${Math.round(r.perSecond)} | ${r.rounds.join(', ')} | ${(r.perSecond / baseline.perSecond).toFixed(2)}x | ${r.p50} | ${r.p99} | ${Math.round(r.cpuAll)} / ${Math.round(r.cpuMain)} | ${r.non2xx} | ${r.persisted ?? '-'} |`,
  ),
  '',
  `Target: >= ${TARGET_PER_SECOND}/s verified, de-duplicated, persisted, and no less than the baseline. ` +
    results
      .filter((r) => r.mode !== 'express')
      .map(
        (r) =>
          `${r.mode}: ${r.perSecond >= TARGET_PER_SECOND ? 'meets' : 'misses'} ${TARGET_PER_SECOND}/s, ${r.perSecond >= baseline.perSecond ? 'at or above' : 'below'} baseline`,
      )
      .join('; ') +
    '.',
  '',
  `Ed25519 floor, same run (before / after the load): \`crypto.verify\` alone ${floorBefore.syncMicros.toFixed(1)} / ${floorAfter.syncMicros.toFixed(1)} µs ` +
    `per signature on one thread (at most ${Math.round(1e6 / floorBefore.syncMicros)} / ${Math.round(1e6 / floorAfter.syncMicros)} per second per core); ` +
    `on the thread pool with 32 in flight, receivers idle: ${Math.round(floorBefore.poolPerSecond)} / ${Math.round(floorAfter.poolPerSecond)} per second ` +
    'for the whole machine. The receiver verifies on the thread pool, so its event loop is free for HTTP and SQLite meanwhile; the load generator shares the same 2 cores.',
  '',
];
const markdown = lines.join('\n');
if (process.env.WEBHOOK_BENCH_DEBUG) console.log(results.map((r) => `${r.mode} ${r.statuses}`).join('\n'));
console.log(markdown);
// The figures go into their marked block of bench/results/webhooks.md; the analysis around it stays.
mkdirSync(join(here, 'results'), { recursive: true });
const resultsFile = join(here, 'results', 'webhooks.md');
if (COMPARE === undefined) {
  const existing = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : undefined;
  writeFileSync(resultsFile, replaceGeneratedBlock(existing, 'webhooks', markdown));
}
