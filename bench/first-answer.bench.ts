// First-answer speed: a buyer's first call is often its process's only call (a CLI run, a
// serverless function). Each sample is a fresh `node` process that imports the client, connects
// and makes one `get_products` call; AdcpClient (built as `npm run build` ships it) against the
// bare `@a2a-js/sdk` 1.x client over A2A and the bare MCP SDK client over MCP, on the same
// servers, interleaved. Time: from before the first `import()` to the answer, inside the process.
// Peak RSS: the process's `maxRSS` over its whole life, read on exit (V8 compiles undici's
// WebAssembly HTTP parser in the background after a process's first fetch: read at the answer,
// the peak depends on whether that compile has run yet, not on what the client keeps). AdcpClient
// is measured as the README writes it (`protocol: 'mcp'`) and with the default `protocol`
// (`auto`: the A2A card is looked for first). Prints one Markdown section.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const RUNS = 7;
const TIME_TARGET = 1.0;
const RSS_TARGET = 1.05;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const INPUT = { buying_mode: 'brief', brief: 'CTV inventory for sports fans' };

if (!isMainThread) {
  // The sellers, in a worker thread: a real MCP SDK server and a real @a2a-js/sdk 1.x server.
  const { startMcpTestServer } = await import('../test/mcp/helpers/mcp-test-server.js');
  const { startServer } = await import('../test/a2a/sdk-servers.js');
  const body = { status: 'completed', message: 'Found 1 product', products: [{ product_id: 'p1' }] };
  const mcp = await startMcpTestServer({
    tools: [
      {
        name: 'get_products',
        handler: () => ({ content: [{ type: 'text', text: 'Found 1 product' }], structuredContent: body }),
      },
    ],
  });
  setInterval(() => {
    mcp.received.length = 0;
    mcp.headers.length = 0;
  }, 200).unref();
  const a2a = await startServer('v1', () => [
    { artifact: { id: 'result', parts: [{ text: 'Found 1 product' }, { data: body }] } },
    { state: 'completed' as const },
  ]);
  parentPort?.postMessage({ mcp: mcp.url, a2a: a2a.base });
  parentPort?.on('message', () => {
    void Promise.all([mcp.close(), a2a.close()]).then(() => parentPort?.postMessage('closed'));
  });
} else {
  await main();
}

/** The measured programs: each prints `{ importMs, totalMs, cpuMs, maxRssKb }` as its last line. */
function programs(dist: string): Record<string, string> {
  const client = JSON.stringify(pathToFileURL(join(dist, 'client/index.js')).href);
  const input = JSON.stringify(INPUT);
  const report = `const totalMs = performance.now() - t0; const cpu = process.cpuUsage(); console.log(JSON.stringify({ importMs, totalMs, cpuMs: (cpu.user + cpu.system) / 1000, answerRssKb: process.resourceUsage().maxRSS }));`;
  // The process's peak RSS over its whole life, printed last (after the answer's line).
  const start = `process.on('exit', () => console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS })));
const t0 = performance.now();`;
  const adcp = (options: string) => `${start}
const { AdcpClient } = await import(${client});
const importMs = performance.now() - t0;
const client = new AdcpClient({ url: process.argv[2]${options} });
const result = await client.call('get_products', ${input});
if (result.status !== 'completed') throw new Error('unexpected ' + result.status);
${report}
await client.close();`;
  return {
    'a2a-bare': `${start}
const { ClientFactory } = await import('@a2a-js/sdk/client');
const importMs = performance.now() - t0;
const client = await new ClientFactory().createFromUrl(process.argv[2]);
const answer = await client.sendMessage(
  { message: { messageId: crypto.randomUUID(), role: 1, parts: [{ content: { $case: 'data', value: { skill: 'get_products', input: ${input} } } }] } },
  { serviceParameters: { 'A2A-Extensions': 'https://adcontextprotocol.org/extensions/adcp/v3' } },
);
if (answer === undefined) throw new Error('no answer');
${report}`,
    'a2a-adcp': adcp(", protocol: 'a2a'"),
    'mcp-bare': `${start}
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const importMs = performance.now() - t0;
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const answer = await client.callTool({ name: 'get_products', arguments: ${input} });
if (answer.isError) throw new Error('error answer');
${report}
await client.close();`,
    'mcp-adcp': adcp(", protocol: 'mcp'"),
    'mcp-adcp-auto': adcp(''),
  };
}

interface Sample {
  importMs: number;
  totalMs: number;
  /** CPU time of the whole process (start-up included) at the answer: less moved by machine load than wall time. */
  cpuMs: number;
  /** Peak RSS so far, at the answer. */
  answerRssKb: number;
  /** Peak RSS over the process's whole life, read on exit. */
  maxRssKb: number;
}

function runOnce(file: string, url: string): Sample {
  const run = spawnSync(process.execPath, [file, url], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`${file} exited ${run.status ?? run.signal}: ${run.stderr}`);
  const [answer, exit] = run.stdout.trim().split('\n').slice(-2);
  return { ...(JSON.parse(answer ?? '') as Sample), ...(JSON.parse(exit ?? '') as Pick<Sample, 'maxRssKb'>) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  console.log('## First answer: import + connect + first get_products, in fresh processes\n');
  const dist = mkdtempSync(join(root, '.bench-dist-'));
  try {
    const build = spawnSync(
      process.execPath,
      [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dist],
      { cwd: root, encoding: 'utf8' },
    );
    if (!existsSync(join(dist, 'client/index.js'))) throw new Error(`build failed: ${build.stdout}${build.stderr}`);
    // As `npm run build` ships it: the client entry and its transports bundled into a few files.
    const bundle = spawnSync(process.execPath, [join(root, 'scripts/bundle-client.mjs'), dist], {
      cwd: root,
      encoding: 'utf8',
    });
    if (bundle.status !== 0) throw new Error(`bundle-client failed: ${bundle.stdout}${bundle.stderr}`);
    const files: Record<string, string> = {};
    for (const [name, code] of Object.entries(programs(dist))) {
      files[name] = join(dist, `${name}.mjs`);
      writeFileSync(files[name], code);
    }
    const worker = new Worker(
      `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); })`,
      { eval: true },
    );
    const urls = await new Promise<{ mcp: string; a2a: string }>((resolve) => worker.once('message', resolve));
    const groups = [
      {
        transport: 'A2A 1.0',
        bare: 'a2a-bare',
        ours: [{ name: 'a2a-adcp', client: "`protocol: 'a2a'`" }],
        url: urls.a2a,
        baseline: '`@a2a-js/sdk` 1.x `ClientFactory` + `sendMessage`',
      },
      {
        transport: 'MCP',
        bare: 'mcp-bare',
        ours: [
          { name: 'mcp-adcp', client: "`protocol: 'mcp'`" },
          { name: 'mcp-adcp-auto', client: '`protocol` left out (`auto`)' },
        ],
        url: urls.mcp,
        baseline: 'MCP SDK 1.x `Client` + `StreamableHTTPClientTransport`',
      },
    ];
    const samples: Record<string, Sample[]> = {};
    for (const group of groups) {
      // One unmeasured run of each warms the disk cache and the server.
      for (const name of [group.bare, ...group.ours.map((o) => o.name)]) runOnce(files[name] ?? '', group.url);
    }
    for (let i = 0; i < RUNS; i++) {
      for (const group of groups) {
        // Interleaved, the order rotated each round so no client always runs first or last.
        const names = [group.bare, ...group.ours.map((o) => o.name)];
        const order = names.map((_, k) => names[(k + i) % names.length] ?? '');
        for (const name of order) (samples[name] ??= []).push(runOnce(files[name] ?? '', group.url));
      }
    }
    worker.postMessage('close');
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    const loadAfter = loadavg();
    console.log(
      `Each sample is a fresh \`node\` process: time from before the first \`import()\` to the first answer, measured inside the process (node start-up excluded); the process's CPU time at the answer (start-up included; it moves less with machine load than wall time, but the target is on wall time); its peak RSS over its whole life (\`process.resourceUsage().maxRSS\` read on exit; the peak at the answer is shown beside it). ${RUNS} samples per client after one unmeasured run each, bare and AdcpClient interleaved (order rotated each round), same servers (a real MCP SDK 1.x server and a real \`@a2a-js/sdk\` 1.x server in a worker thread of the benchmark process), same run. AdcpClient is built as \`npm run build\` ships it. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} at the start, ${loadAfter.map((l) => l.toFixed(1)).join(' / ')} at the end. Targets: median time at most ${TIME_TARGET.toFixed(2)}x the bare client, peak RSS at most ${RSS_TARGET.toFixed(2)}x.\n`,
    );
    console.log(
      '| transport | baseline | AdcpClient | bare import / total (ms) | AdcpClient import / total (ms) | time ratio | CPU ratio (bare CPU ms) | peak RSS, bare / AdcpClient (MB) | RSS ratio | RSS ratio at the answer | met |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    const loaded = loadBefore[0] !== undefined && loadBefore[0] > 1.5;
    const m = (list: Sample[], key: keyof Sample) => median(list.map((s) => s[key]));
    for (const group of groups) {
      const bare = samples[group.bare] ?? [];
      for (const { name, client } of group.ours) {
        const ours = samples[name] ?? [];
        const time = m(ours, 'totalMs') / m(bare, 'totalMs');
        const rss = m(ours, 'maxRssKb') / m(bare, 'maxRssKb');
        const met = time <= TIME_TARGET && rss <= RSS_TARGET;
        const verdict = loaded ? `not claimed (load ${loadBefore[0]?.toFixed(1)})` : met ? 'yes' : 'no';
        console.log(
          `| ${group.transport} | ${group.baseline} | ${client} | ${m(bare, 'importMs').toFixed(1)} / ${m(bare, 'totalMs').toFixed(1)} | ${m(ours, 'importMs').toFixed(1)} / ${m(ours, 'totalMs').toFixed(1)} | ${time.toFixed(2)}x | ${(m(ours, 'cpuMs') / m(bare, 'cpuMs')).toFixed(2)}x (${m(bare, 'cpuMs').toFixed(0)}) | ${(m(bare, 'maxRssKb') / 1024).toFixed(1)} / ${(m(ours, 'maxRssKb') / 1024).toFixed(1)} | ${rss.toFixed(3)}x | ${(m(ours, 'answerRssKb') / m(bare, 'answerRssKb')).toFixed(3)}x | ${verdict} |`,
        );
      }
    }
    console.log('');
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
}
