// Telemetry benchmarks: what the OpenTelemetry hooks cost per AdcpClient.call (MCP, loopback, a
// real SDK server in a worker thread), in one run and interleaved so load drifts hit every
// configuration alike:
//   - baseline: `@opentelemetry/api` absent, so every hook returns at its first check (the
//     closest in-process stand-in for the code without hooks);
//   - API installed, no SDK registered (target ≤ 1.02x the baseline);
//   - the SDK registered (tracer provider with a batch processor, meter provider, async-hooks
//     context manager) exporting to a no-op exporter (target ≤ 1.10x the baseline).
// Prints one Markdown section.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';

const CALLS = 600;
const WARMUP = 150;
const BLOCK = 20;

if (!isMainThread) {
  const { startMcpTestServer } = await import('../test/mcp/helpers/mcp-test-server.js');
  const body = { status: 'completed', products: [{ product_id: 'p1' }, { product_id: 'p2' }] };
  const server = await startMcpTestServer({
    mode: 'json',
    tools: [{ name: 'get_products', handler: () => ({ content: [], structuredContent: body }) }],
  });
  setInterval(() => {
    server.received.length = 0;
    server.headers.length = 0;
  }, 200).unref();
  parentPort?.postMessage(server.url);
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
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics');
  const { setOtelApiForTests } = await import('../src/telemetry/otel.js');
  const { AdcpClient } = await import('../src/client/index.js');

  let exported = 0;
  const noopExporter = {
    export(spans: unknown[], done: (result: { code: 0 }) => void) {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  class IdleReader extends MetricReader {
    protected override onForceFlush(): Promise<void> {
      return Promise.resolve();
    }
    protected override onShutdown(): Promise<void> {
      return Promise.resolve();
    }
  }
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(noopExporter)] });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const contextManager = new AsyncLocalStorageContextManager();

  type Mode = 'baseline' | 'no-sdk' | 'sdk';
  const enter = (mode: Mode) => {
    setOtelApiForTests(mode === 'baseline' ? null : undefined);
    if (mode === 'sdk') {
      api.context.setGlobalContextManager(contextManager.enable());
      api.trace.setGlobalTracerProvider(tracerProvider);
      api.metrics.setGlobalMeterProvider(meterProvider);
    }
  };
  const leave = (mode: Mode) => {
    if (mode !== 'sdk') return;
    api.trace.disable();
    api.metrics.disable();
    api.context.disable();
  };

  const body = { status: 'completed', products: [{ product_id: 'p1' }, { product_id: 'p2' }] };
  // In-process canned MCP answers (no socket, no server): the time per call is the client's own.
  const canned = (async (_url: unknown, init: RequestInit = {}) => {
    if ((init.method ?? 'GET') !== 'POST') return new Response(null, { status: init.method === 'DELETE' ? 200 : 405 });
    if (typeof init.body !== 'string') throw new TypeError('bench fetch: the MCP client sends JSON text');
    const msg = JSON.parse(init.body) as { id?: number; method: string };
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const result =
      msg.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'canned', version: '1' } }
        : { content: [], structuredContent: body };
    const text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
    return new Response(text, { headers: { 'content-type': 'application/json', 'mcp-session-id': 's1' } });
  }) as typeof fetch;
  const client = new AdcpClient(
    process.env['TELEMETRY_BENCH_LOOPBACK'] === '1'
      ? { url, protocol: 'mcp' }
      : { url, protocol: 'mcp', fetch: canned },
  );
  const args = { buying_mode: 'brief', brief: 'CTV for pet owners', brand: { domain: 'example.com' } } as const;
  const call = async () => {
    const result = await client.call('get_products', args);
    if (result.status !== 'completed') throw new Error(`unexpected ${result.status}`);
  };
  const modes: Mode[] = ['baseline', 'no-sdk', 'sdk'];
  const times = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (const mode of modes) {
    enter(mode);
    for (let i = 0; i < WARMUP; i++) await call();
    leave(mode);
  }
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const mode of modes) {
      enter(mode);
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await call();
        times.get(mode)?.push(performance.now() - t0);
      }
      leave(mode);
    }
  }
  await client.close();
  await worker.terminate();
  await tracerProvider.forceFlush();

  const base = median(times.get('baseline') ?? []);
  console.log('## Telemetry: per-call overhead of the OpenTelemetry hooks\n');
  console.log(
    `Machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' / ',
      )}. AdcpClient.call('get_products') over MCP (JSON answers) ${process.env['TELEMETRY_BENCH_LOOPBACK'] === '1' ? 'to a real SDK server in a worker thread' : "answered by an in-process canned fetch (no socket: the client's own time per call; `TELEMETRY_BENCH_LOOPBACK=1` for a real server over loopback)"}; ${CALLS} calls per configuration, interleaved in blocks of ${BLOCK} after ${WARMUP} warm-up calls each; ${exported} spans reached the no-op exporter.\n`,
  );
  console.log('| configuration | median (ms) | ratio to baseline | target | met |');
  console.log('|---|---|---|---|---|');
  const targets: Record<Mode, number | undefined> = { baseline: undefined, 'no-sdk': 1.02, sdk: 1.1 };
  const labels: Record<Mode, string> = {
    baseline: '`@opentelemetry/api` absent (hooks return at once): baseline',
    'no-sdk': 'API installed, no SDK registered',
    sdk: 'SDK registered, batch processor, no-op exporter, meter provider, async-hooks context',
  };
  let allMet = true;
  for (const mode of modes) {
    const value = median(times.get(mode) ?? []);
    const ratio = value / base;
    const target = targets[mode];
    const met = target === undefined ? '' : ratio <= target ? 'yes' : 'no';
    if (met === 'no') allMet = false;
    console.log(
      `| ${labels[mode]} | ${value.toFixed(3)} | ${ratio.toFixed(3)}x | ${target === undefined ? '' : `≤ ${target.toFixed(2)}x`} | ${met} |`,
    );
  }
  console.log(`\n${allMet ? 'All targets met.' : 'Some targets NOT met (see rows marked no).'}\n`);
}
