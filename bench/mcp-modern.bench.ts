// MCP 2026-07-28 (modern era) client benchmarks: AdcpClient against the bare SDK v2 client on
// the same SDK v2 server in the same run, per call and to the first result, and AdcpClient on
// the modern era against itself on the 2025 era (same server, which serves both). Issue 19's
// targets: per call ≤ 1.10x, first result ≤ 1.2x, no extra round trip per call once the era is known.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { buildCompiled } from './compiled-build.js';
import { median, p90 } from './stats.js';

const CALLS = 400;
const WARMUP = 100;
const FIRST_SAMPLES = 40;
const ARGS = { buying_mode: 'brief', brief: 'CTV for pet owners', brand: { domain: 'example.com' } };

if (!isMainThread) {
  // Server side, in its own thread: an SDK v2 server serving both eras (2025 statelessly).
  const { createServer } = await import('node:http');
  const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const z = await import('zod');
  const body = {
    status: 'completed',
    message: 'Found 2 products',
    products: [{ product_id: 'p1' }, { product_id: 'p2' }],
  };
  const factory = () => {
    const server = new McpServer({ name: 'bench-v2', version: '1.0.0' });
    for (const name of ['get_products', 'create_media_buy']) {
      server.registerTool(name, { description: name, inputSchema: z.looseObject({}) }, () => ({
        content: [{ type: 'text', text: 'Found 2 products' }],
        structuredContent: name === 'get_products' ? body : { status: 'completed', media_buy_id: 'mb_1' },
      }));
    }
    return server;
  };
  const node = toNodeHandler(createMcpHandler(factory, { legacy: 'stateless' }));
  const http = createServer((req, res) => void node(req as Parameters<typeof node>[0], res));
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  parentPort?.postMessage(`http://127.0.0.1:${port}/mcp`);
} else {
  await main();
}

/** A fetch that counts the requests it sends. */
function counting(): { fetch: typeof fetch; count: () => number } {
  let sent = 0;
  return {
    fetch: (input, init) => {
      sent += 1;
      return fetch(input, init);
    },
    count: () => sent,
  };
}

type Ours = typeof import('../src/client/index.js');
type V2 = typeof import('@modelcontextprotocol/client');

interface Side {
  call(tool: string): Promise<void>;
  close(): Promise<void>;
  requests(): number;
}

async function adcpSide(lib: Ours, url: string, mcpEra: 'auto' | 'legacy'): Promise<Side> {
  const wire = counting();
  const client = new lib.AdcpClient({ url, protocol: 'mcp', mcpEra, fetch: wire.fetch });
  return {
    call: async (tool) => {
      const result = await client.call(tool, ARGS);
      if (result.status !== 'completed') throw new Error(`unexpected ${result.status}`);
    },
    close: () => client.close(),
    requests: wire.count,
  };
}

async function bareSide(v2: V2, url: string): Promise<Side> {
  const wire = counting();
  const client = new v2.Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new v2.StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
  if (client.getProtocolEra() !== 'modern') throw new Error('the bare SDK v2 client did not reach the modern era');
  return {
    // The same bytes AdcpClient sends: a fresh idempotency_key on the mutating tool, and the
    // adcp_version and adcp_major_version every AdcpClient request carries.
    call: async (tool) => {
      const extra = tool === 'create_media_buy' ? { idempotency_key: crypto.randomUUID() } : {};
      const args = { ...ARGS, ...extra, adcp_version: '3.1', adcp_major_version: 3 };
      const result = await client.callTool({ name: tool, arguments: args });
      if ((result.structuredContent as { status?: string } | undefined)?.status !== 'completed')
        throw new Error('unexpected answer');
    },
    close: () => client.close(),
    requests: wire.count,
  };
}

interface Row {
  label: string;
  ours: number[];
  base: number[];
  baseLabel: string;
  target?: number;
}

/** Warm calls, the sides alternating call by call (both see the same load). */
async function perCall(sides: Record<string, Side>, tool: string, n: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const name of Object.keys(sides)) out[name] = [];
  for (const side of Object.values(sides)) for (let i = 0; i < WARMUP; i++) await side.call(tool);
  for (let i = 0; i < n; i++) {
    for (const [name, side] of Object.entries(sides)) {
      const t0 = performance.now();
      await side.call(tool);
      out[name]?.push(performance.now() - t0);
    }
  }
  return out;
}

/** A new client each sample: construct, learn the era (connect), first `get_products` answer. */
async function firstResult(make: Record<string, () => Promise<Side>>, n: number) {
  const out: Record<string, { ms: number[]; requests: number[] }> = {};
  for (const name of Object.keys(make)) out[name] = { ms: [], requests: [] };
  for (let i = 0; i < n + 5; i++) {
    for (const [name, open] of Object.entries(make)) {
      const t0 = performance.now();
      const side = await open();
      await side.call('get_products');
      const ms = performance.now() - t0;
      if (i >= 5) {
        out[name]?.ms.push(ms);
        out[name]?.requests.push(side.requests());
      }
      await side.close();
    }
  }
  return out;
}

async function main(): Promise<void> {
  console.log('## MCP 2026-07-28: AdcpClient vs the bare SDK v2 client, and vs the 2025 era\n');
  const load = loadavg().map((l) => l.toFixed(1));
  console.log(
    `Machine: ${cpus().length} cores, load average ${load.join(' / ')} at the start (the whole team shares it).\n`,
  );
  const compiled = buildCompiled('modern');
  try {
    await measure((await import(pathToFileURL(join(compiled.dir, 'client/index.js')).href)) as Ours);
  } finally {
    compiled.remove();
  }
}

async function measure(lib: Ours): Promise<void> {
  const entry = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${entry}); })`, {
    eval: true,
  });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const v2 = await import('@modelcontextprotocol/client');
  const rows: Row[] = [];
  let requestsPerCall = Number.NaN;
  try {
    const sides = {
      ours: await adcpSide(lib, url, 'auto'),
      bare: await bareSide(v2, url),
      legacy: await adcpSide(lib, url, 'legacy'),
    };
    for (const tool of ['get_products', 'create_media_buy']) {
      const before = sides.ours.requests();
      const times = await perCall(sides, tool, CALLS);
      requestsPerCall = (sides.ours.requests() - before) / (CALLS + WARMUP);
      const ours = times.ours ?? [];
      rows.push({
        label: `per call, \`${tool}\``,
        ours,
        base: times.bare ?? [],
        baseLabel: 'bare SDK v2',
        target: 1.1,
      });
      rows.push({
        label: `per call, \`${tool}\`, 2025 era`,
        ours: times.legacy ?? [],
        base: ours,
        baseLabel: 'AdcpClient on 2026',
      });
    }
    await Promise.all(Object.values(sides).map((side) => side.close()));

    const first = await firstResult(
      {
        ours: () => adcpSide(lib, url, 'auto'),
        bare: () => bareSide(v2, url),
        legacy: () => adcpSide(lib, url, 'legacy'),
      },
      FIRST_SAMPLES,
    );
    const f = (name: string) => first[name] ?? { ms: [], requests: [] };
    rows.push({
      label: 'first result (new client, era probe, `get_products`)',
      ours: f('ours').ms,
      base: f('bare').ms,
      baseLabel: 'bare SDK v2 (connect + call)',
      target: 1.2,
    });
    rows.push({
      label: 'first result, 2025 era (`initialize`, session)',
      ours: f('legacy').ms,
      base: f('ours').ms,
      baseLabel: 'AdcpClient on 2026',
    });
    print(rows, requestsPerCall, {
      ours: median(f('ours').requests),
      bare: median(f('bare').requests),
      legacy: median(f('legacy').requests),
    });
  } finally {
    await worker.terminate();
  }
}

function print(rows: Row[], requestsPerCall: number, firstRequests: Record<'ours' | 'bare' | 'legacy', number>): void {
  console.log(
    `Sequential calls over loopback to an SDK v2 server (\`createMcpHandler\`, \`legacy: 'stateless'\`, so one server serves both eras) in a worker thread. Per call: ${CALLS} timed calls per client after ${WARMUP} warm-up calls, the clients alternating call by call, same bytes on the wire (the bare client sends the \`idempotency_key\`, \`adcp_version\` and \`adcp_major_version\` AdcpClient adds). First result: ${FIRST_SAMPLES} samples (after 5 unmeasured) of a new client from construction to its first \`get_products\` answer. AdcpClient is the tsc-compiled JavaScript with \`mcpEra: 'auto'\` (one \`server/discover\`, remembered); the bare client is \`@modelcontextprotocol/client\` with \`versionNegotiation: { mode: 'auto' }\`. Ratio = median / median of the baseline named.\n`,
  );
  console.log(
    '| case | AdcpClient median (ms) | p90 (ms) | baseline | baseline median (ms) | p90 (ms) | ratio | target |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  let allMet = true;
  for (const row of rows) {
    const ratio = median(row.ours) / median(row.base);
    const verdict =
      row.target === undefined
        ? '(for comparison)'
        : `≤ ${row.target.toFixed(2)}x: ${ratio <= row.target ? 'met' : 'NOT met'}`;
    if (row.target !== undefined && ratio > row.target) allMet = false;
    console.log(
      `| ${row.label} | ${median(row.ours).toFixed(3)} | ${p90(row.ours).toFixed(3)} | ${row.baseLabel} | ${median(row.base).toFixed(3)} | ${p90(row.base).toFixed(3)} | ${ratio.toFixed(3)}x | ${verdict} |`,
    );
  }
  const extra = requestsPerCall > 1;
  if (extra) allMet = false;
  console.log(
    `\nRound trips: AdcpClient sent ${requestsPerCall.toFixed(2)} HTTP requests per call once the era was known (target: 1, no extra round trip: ${extra ? 'NOT met' : 'met'}). To the first result: AdcpClient ${firstRequests.ours} (\`server/discover\`, \`tools/call\`), bare SDK v2 ${firstRequests.bare}, AdcpClient on the 2025 era ${firstRequests.legacy} (medians).\n`,
  );
  console.log(
    `${allMet ? 'All targets met' : 'Some targets NOT met'} in this run (load average at the start: see above).\n`,
  );
}
