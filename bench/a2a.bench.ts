// A2A transport overhead: median latency of one blocking call through A2ATransport against the
// bare @a2a-js/sdk client on the same server, same run, on both wires (1.x SDK server, 1.0 wire;
// 0.3.x SDK server, v0.3 wire). The servers run in a worker thread so that server work does not
// share the client's event loop; the two clients alternate in blocks to cancel out drift.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';

const CALLS = 500;
const WARMUP = 100;
const BLOCK = 5;
const TARGET = 1.1;

if (!isMainThread) {
  const { startServer } = await import('../test/a2a/sdk-servers.js');
  const fast = () => [
    {
      artifact: {
        id: 'result',
        parts: [
          { text: 'Found 1 product' },
          { data: { status: 'completed', products: [{ product_id: 'p1', name: 'CTV premium' }], total: 1 } },
        ],
      },
    },
    { state: 'completed' as const },
  ];
  const v1 = await startServer('v1', fast);
  const v03 = await startServer('v0.3', fast);
  parentPort?.postMessage({ v1: v1.base, v03: v03.base });
  parentPort?.on('message', () => {
    void Promise.all([v1.close(), v03.close()]).then(() => parentPort?.postMessage('closed'));
  });
} else {
  await main();
}

async function main(): Promise<void> {
  // Node 20 does not hand `--import tsx` to a worker's entry module: register tsx inside it first.
  const entry = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${entry}); })`, {
    eval: true,
  });
  const bases = await new Promise<{ v1: string; v03: string }>((resolve) => worker.once('message', resolve));
  const { A2ATransport } = await import('../src/a2a/index.js');
  const V1Client = await import('@a2a-js/sdk/client');
  const { Role } = await import('@a2a-js/sdk');
  const V03Client = await import('a2a-sdk-v03/client');

  const input = { brief: 'CTV inventory for sports fans', idempotency_key: '550e8400-e29b-41d4-a716-446655440000' };
  const ours = (url: string, wire: '1.0' | '0.3') => {
    const t = new A2ATransport({ url, maxBytes: 10 * 1024 * 1024, a2aWire: wire });
    return async () => {
      const r = await t.callTool('get_products', input, { maxBytes: 10 * 1024 * 1024 });
      if (r.status !== 'completed') throw new Error(`unexpected ${r.status}`);
    };
  };
  const sdkV1 = await new V1Client.ClientFactory().createFromUrl(bases.v1);
  const bareV1 = async () => {
    const r = (await sdkV1.sendMessage(
      {
        message: {
          messageId: crypto.randomUUID(),
          role: Role.ROLE_USER,
          parts: [{ content: { $case: 'data', value: { skill: 'get_products', input } } }],
        },
      } as never,
      { serviceParameters: { 'A2A-Extensions': 'https://adcontextprotocol.org/extensions/adcp/v3' } },
    )) as { status?: unknown };
    if (r === undefined) throw new Error('no result');
  };
  const sdkV03 = await new V03Client.ClientFactory().createFromUrl(bases.v03);
  const bareV03 = async () => {
    const r = await sdkV03.sendMessage({
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'get_products', input } }],
      },
    });
    if (r === undefined) throw new Error('no result');
  };

  const rows = [
    await compare('A2A 1.0 (1.x SDK server)', ours(bases.v1, '1.0'), bareV1, '`@a2a-js/sdk` 1.x `Client.sendMessage`'),
    await compare(
      'A2A v0.3 (0.3.x SDK server)',
      ours(bases.v03, '0.3'),
      bareV03,
      '`a2a-sdk-v03` (`@a2a-js/sdk` 0.3) `Client.sendMessage`',
    ),
  ];
  worker.postMessage('close');
  await new Promise((resolve) => worker.once('message', resolve));
  await worker.terminate();

  console.log('## A2A transport: per-call latency vs the bare @a2a-js/sdk client\n');
  console.log(
    `One blocking \`get_products\` call per sample over loopback, ${CALLS} samples each after ${WARMUP} warm-up calls, the two clients alternating in blocks of ${BLOCK}; servers in a worker thread; no AbortSignal on either side. Target: ratio of medians at most ${TARGET.toFixed(2)}x.\n`,
  );
  console.log(
    '| wire | adcp-wire median (ms) | p90 (ms) | bare SDK client | SDK median (ms) | p90 (ms) | ratio | target met |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  let allMet = true;
  for (const r of rows) {
    const ratio = r.ours.median / r.bare.median;
    const met = ratio <= TARGET;
    allMet &&= met;
    console.log(
      `| ${r.name} | ${r.ours.median.toFixed(3)} | ${r.ours.p90.toFixed(3)} | ${r.bareName} | ${r.bare.median.toFixed(3)} | ${r.bare.p90.toFixed(3)} | ${ratio.toFixed(3)}x | ${met ? 'yes' : 'no'} |`,
    );
  }
  console.log(`\nTarget ${allMet ? 'met' : 'NOT met'} on ${allMet ? 'both wires' : 'at least one wire'}.\n`);
}

interface Stats {
  median: number;
  p90: number;
}

async function compare(name: string, ours: () => Promise<void>, bare: () => Promise<void>, bareName: string) {
  for (let i = 0; i < WARMUP; i++) {
    await ours();
    await bare();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (let i = 0; i < BLOCK; i++) a.push(await time(ours));
    for (let i = 0; i < BLOCK; i++) b.push(await time(bare));
  }
  return { name, bareName, ours: stats(a), bare: stats(b) };
}

async function time(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { median: at(0.5), p90: at(0.9) };
}
