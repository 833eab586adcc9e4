// MCP client benchmarks: per-call overhead of AdcpClient against the bare SDK `Client.callTool`
// on the same server in the same run, and the cold import of `adcp-wire/client` against the cold
// import of the MCP SDK client modules it uses. Prints one Markdown section.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { buildCompiled } from './compiled-build.js';
import { median, p90 } from './stats.js';

const CALLS = 500;
const WARMUP = 100;
const BLOCK = 1;
const IMPORT_RUNS = 15;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (!isMainThread) {
  // Server side, in its own thread: a real SDK server with one small AdCP-shaped tool.
  const { startMcpTestServer } = await import('../test/mcp/helpers/mcp-test-server.js');
  const body = {
    status: 'completed',
    message: 'Found 2 products',
    products: [{ product_id: 'p1' }, { product_id: 'p2' }],
  };
  // For the validated row (asked with brief 'validated'): two of the reference seller's
  // products, valid AdCP 3.1, so the client checks a whole answer that passes.
  const { CATALOG, productToWire } = await import('../src/seller/catalog.js');
  const valid = {
    status: 'completed',
    message: 'Found 2 products',
    products: CATALOG.slice(0, 2).map((p) => productToWire(p)),
    cache_scope: 'public',
  };
  const server = await startMcpTestServer({
    mode: (workerData as { mode: 'sse' | 'json' }).mode,
    tools: [
      {
        name: 'get_products',
        handler: (args) => ({
          content: [{ type: 'text', text: 'Found 2 products' }],
          structuredContent: args['brief'] === 'validated' ? valid : body,
        }),
      },
      {
        name: 'create_media_buy',
        handler: () => ({ content: [], structuredContent: { status: 'completed', media_buy_id: 'mb_1' } }),
      },
    ],
  });
  // The test server keeps every request for assertions; a benchmark has no use for them.
  setInterval(() => {
    server.received.length = 0;
    server.headers.length = 0;
  }, 200).unref();
  parentPort?.postMessage(server.url);
} else {
  await main();
}

async function startServer(mode: 'sse' | 'json'): Promise<{ url: string; worker: Worker }> {
  const entry = JSON.stringify(import.meta.url);
  const worker = new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${entry}); })`, {
    eval: true,
    workerData: { mode },
  });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url, worker };
}

async function timeCalls(run: () => Promise<unknown>, n: number, out: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    out.push(performance.now() - t0);
  }
}

interface LatencyRow {
  label: string;
  ours: number[];
  bare: number[];
  /** Ratio of medians the row must stay under. */
  target: number;
}

async function latency(mode: 'sse' | 'json', warnings: string[], compiled: string): Promise<LatencyRow[]> {
  const { url, worker } = await startServer(mode);
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { AdcpClient } = (await import(
    pathToFileURL(join(compiled, 'client/index.js')).href
  )) as typeof import('../src/client/index.js');
  const bare = new Client({ name: 'bench', version: '1' });
  await bare.connect(new StreamableHTTPClientTransport(new URL(url)));
  const ours = new AdcpClient({ url, protocol: 'mcp' });
  // Issue 15: the same client checking each request before it is sent and each answer against
  // the AdCP 3.1 schemas (validators built ahead of time, as the package ships them).
  const validated = new AdcpClient({ url, protocol: 'mcp', validate: 'both' });
  const plain = { buying_mode: 'brief', brief: 'CTV for pet owners', brand: { domain: 'example.com' } };
  const checked = { ...plain, brief: 'validated' };
  // The bare client sends the same bytes AdcpClient puts on the wire: a fresh idempotency_key on
  // the mutating tool, none on the read.
  const bareCall = (name: string, args: Record<string, unknown>) =>
    name === 'create_media_buy'
      ? () => bare.callTool({ name, arguments: { ...args, idempotency_key: crypto.randomUUID() } })
      : () => bare.callTool({ name, arguments: args });
  const oursCall = (name: string, client: typeof ours, args: Record<string, unknown>) => async () => {
    const result = await client.call(name, args);
    if (result.status !== 'completed') throw new Error(`unexpected ${result.status}`);
    if (client === validated && result.validation?.ok !== true) {
      throw new Error(`the validated client did not check a valid answer: ${JSON.stringify(result.validation)}`);
    }
  };
  const rows: LatencyRow[] = [];
  const cases = [
    { tool: 'get_products', client: ours, args: plain, note: '', target: 1.1 },
    { tool: 'create_media_buy', client: ours, args: plain, note: '', target: 1.1 },
    { tool: 'get_products', client: validated, args: checked, note: ", AdcpClient `validate: 'both'`", target: 1.15 },
  ];
  for (const { tool, client, args, note, target } of cases) {
    const label = `${mode === 'sse' ? 'SSE' : 'JSON'} answers, \`${tool}\`${note}`;
    const row: LatencyRow = { label, ours: [], bare: [], target };
    await timeCalls(bareCall(tool, args), WARMUP, []);
    await timeCalls(oursCall(tool, client, args), WARMUP, []);
    for (let done = 0; done < CALLS; done += BLOCK) {
      await timeCalls(bareCall(tool, args), BLOCK, row.bare);
      await timeCalls(oursCall(tool, client, args), BLOCK, row.ours);
    }
    rows.push(row);
  }
  await validated.close();
  await ours.close();
  await bare.close();
  await worker.terminate();
  void warnings;
  return rows;
}

/**
 * Client-side cost alone: both clients talk to a canned in-process `fetch` (no socket, no
 * server), so the time per call is what each client itself spends. Mean over `n` calls, best of 3.
 */
async function clientCost(compiled: string, n: number, mode: 'json' | 'sse'): Promise<{ ours: number; bare: number }> {
  const body = {
    status: 'completed',
    message: 'Found 2 products',
    products: [{ product_id: 'p1' }, { product_id: 'p2' }],
  };
  const canned = (async (_url: unknown, init: RequestInit = {}) => {
    if ((init.method ?? 'GET') !== 'POST') return new Response(null, { status: init.method === 'DELETE' ? 200 : 405 });
    if (typeof init.body !== 'string') throw new TypeError('bench fetch: the MCP client sends JSON text');
    const msg = JSON.parse(init.body) as { id?: number; method: string };
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const result =
      msg.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'canned', version: '1' } }
        : { content: [{ type: 'text', text: 'Found 2 products' }], structuredContent: body };
    const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    if (mode === 'sse' && msg.method !== 'initialize') {
      // As the SDK server sends an SSE answer it has whole: one event, with its length declared.
      const event = `event: message\ndata: ${text}\n\n`;
      return new Response(event, {
        headers: {
          'content-type': 'text/event-stream',
          'mcp-session-id': 's1',
          'content-length': String(Buffer.byteLength(event)),
        },
      });
    }
    return new Response(text, {
      headers: {
        'content-type': 'application/json',
        'mcp-session-id': 's1',
        'content-length': String(Buffer.byteLength(text)),
      },
    });
  }) as typeof fetch;
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { AdcpClient } = (await import(
    pathToFileURL(join(compiled, 'client/index.js')).href
  )) as typeof import('../src/client/index.js');
  const url = 'http://127.0.0.1:9/mcp';
  // The canned server is a 2025-era one (it answers initialize, not server/discover).
  const ours = new AdcpClient({ url, protocol: 'mcp', mcpEra: 'legacy', fetch: canned });
  const bare = new Client({ name: 'bench', version: '1' });
  await bare.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: canned }));
  const args = { buying_mode: 'brief', brief: 'CTV for pet owners' };
  const run = {
    ours: () => ours.call<string>('create_media_buy', args),
    bare: () =>
      bare.callTool({ name: 'create_media_buy', arguments: { ...args, idempotency_key: crypto.randomUUID() } }),
  };
  const best = { ours: Infinity, bare: Infinity };
  for (let round = 0; round < 3; round++) {
    for (const side of ['bare', 'ours'] as const) {
      for (let i = 0; i < 1000; i++) await run[side]();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await run[side]();
      best[side] = Math.min(best[side], ((performance.now() - t0) / n) * 1000);
    }
  }
  await ours.close();
  await bare.close();
  return best;
}

/** Median wall time of importing `specifiers` in a fresh `node` process, measured inside it (ms). */
function coldImport(specifiers: string[]): number[] {
  const code = `const t0 = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); console.log(performance.now() - t0);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd: root });
  if (run.status !== 0) throw new Error(`cold import failed: ${run.stderr}`);
  return [Number(run.stdout.trim())];
}

async function main(): Promise<void> {
  const warnings: string[] = [];
  process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
  console.log('## MCP client: per-call overhead and cold import\n');
  console.log(
    `Machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the start (the whole team shares it).\n`,
  );

  // Both measurements use adcp-wire compiled by tsc (as users run it from dist/).
  const compiled = buildCompiled('mcp-client', { validators: true });
  process.on('exit', () => compiled.remove());
  const out = compiled.dir;
  const rows = [...(await latency('sse', warnings, out)), ...(await latency('json', warnings, out))];
  console.log(
    `Sequential calls over loopback to a real \`@modelcontextprotocol/sdk\` 1.32 server running in a worker thread: ${CALLS} timed calls per client after ${WARMUP} warm-up calls, the bare SDK \`Client.callTool\` and \`AdcpClient.call\` alternating call by call (so both see the same machine load), same server, same process, same run, same bytes on the wire (for \`create_media_buy\` the bare client sends a fresh \`idempotency_key\` too, as AdcpClient generates one). AdcpClient is the tsc-compiled JavaScript, as users run it; the SDK is its published JavaScript. Target: ratio of medians at most 1.10x; with \`validate: 'both'\` (issue 15: the request checked before it is sent, the answer, two of the reference seller's products valid in AdCP 3.1, after) at most 1.15x.\n`,
  );
  console.log('| case | AdcpClient median (ms) | p90 (ms) | bare SDK median (ms) | p90 (ms) | ratio | target met |');
  console.log('|---|---|---|---|---|---|---|');
  let allMet = true;
  for (const row of rows) {
    const ratio = median(row.ours) / median(row.bare);
    const met = ratio <= row.target;
    allMet &&= met;
    console.log(
      `| ${row.label} | ${median(row.ours).toFixed(3)} | ${p90(row.ours).toFixed(3)} | ${median(row.bare).toFixed(3)} | ${p90(row.bare).toFixed(3)} | ${ratio.toFixed(3)}x | ${met ? 'yes' : 'no'} |`,
    );
  }
  const cost = await clientCost(out, 5000, 'json');
  console.log(
    `\nWhere the difference comes from: with a canned in-process \`fetch\` (no socket, no server) each client spends ${cost.ours.toFixed(1)} µs (AdcpClient: idempotency key, deadline, byte-capped fetch, retry wrapper, TaskResult) vs ${cost.bare.toFixed(1)} µs (bare SDK) per \`create_media_buy\` call (best of 3 means over 5,000 calls): ${(cost.ours - cost.bare).toFixed(1)} µs added per call.`,
  );
  const sseCost = await clientCost(out, 5000, 'sse');
  console.log(
    `\nThe same with the canned \`fetch\` answering in SSE (one event, its length declared, as the SDK server sends it): ${sseCost.ours.toFixed(1)} µs vs ${sseCost.bare.toFixed(1)} µs: ${(sseCost.ours - sseCost.bare).toFixed(1)} µs added per call.`,
  );
  console.log(
    `\nProcess warnings emitted during all the calls above (${rows.length * (CALLS + WARMUP) * 2} over loopback, 72,000 canned): ${warnings.length === 0 ? 'none (no MaxListenersExceededWarning)' : warnings.join('; ')}.\n`,
  );

  const sdk = [
    '@modelcontextprotocol/sdk/client/index.js',
    '@modelcontextprotocol/sdk/client/streamableHttp.js',
    '@modelcontextprotocol/sdk/types.js',
  ];
  const client = [join(out, 'client/index.js')];
  // What a first call to a 2025-era agent loads: the era chooser and the 2025-era transport (with the SDK 1.x).
  const clientAndMcp = [...client, join(out, 'mcp/index.js'), join(out, 'mcp/legacy/legacy-transport.js')];
  const samples = { sdk: [] as number[], client: [] as number[], clientAndMcp: [] as number[] };
  for (let i = 0; i < IMPORT_RUNS; i++) {
    samples.sdk.push(...coldImport(sdk));
    samples.client.push(...coldImport(client));
    samples.clientAndMcp.push(...coldImport(clientAndMcp));
  }
  const base = median(samples.sdk);
  console.log(
    `Cold import, each in a fresh \`node\` process (time from before the first \`import()\` to after the last, measured inside the process; node start-up excluded), ${IMPORT_RUNS} runs each, alternating; median. Baseline: the MCP SDK client modules the transport uses (\`client/index.js\`, \`client/streamableHttp.js\`, \`types.js\`; the legacy \`client/sse.js\` is loaded only on fallback, on both sides). \`adcp-wire/client\` loads its transport on the first call, so the fair comparison is the second row: the client plus the MCP transport it will load. Target: at most 1.15x.\n`,
  );
  console.log('| import | median (ms) | ratio to SDK client modules | target met |');
  console.log('|---|---|---|---|');
  console.log(`| MCP SDK client modules (baseline) | ${base.toFixed(1)} | 1.000x | |`);
  const rowsImport: [string, number[]][] = [
    ['`adcp-wire/client` alone (transport not loaded yet)', samples.client],
    ['`adcp-wire/client` + its 2025-era MCP transport (`src/mcp`, `src/mcp/legacy`)', samples.clientAndMcp],
  ];
  for (const [label, values] of rowsImport) {
    const ratio = median(values) / base;
    const met = ratio <= 1.15;
    allMet &&= met;
    console.log(`| ${label} | ${median(values).toFixed(1)} | ${ratio.toFixed(3)}x | ${met ? 'yes' : 'no'} |`);
  }
  console.log(`\n${allMet ? 'All targets met.' : 'Some targets NOT met (see rows marked no).'}\n`);
}
