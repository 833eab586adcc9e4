// Telemetry benchmarks: what the OpenTelemetry hooks cost per AdcpClient.call (MCP, loopback, a
// real SDK server in a worker thread), in one run and interleaved so load drifts hit every
// configuration alike:
//   - baseline: `@opentelemetry/api` absent, so every hook returns at its first check (the
//     closest in-process stand-in for the code without hooks);
//   - API installed, no SDK registered (target ≤ 1.02x the baseline);
//   - the SDK registered (tracer provider with a batch processor, meter provider, async-hooks
//     context manager, active as an application's own instrumentation makes it) exporting to a
//     no-op exporter, with adcp-wire's hooks off: what the SDK costs the application anyway;
//   - the same SDK with the hooks on (target ≤ 1.10x the SDK with hooks off: the hooks' own
//     cost; its ratio to the first baseline is printed too).
// Prints one Markdown section.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';

const CALLS = 1500;
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

  type Mode = 'baseline' | 'no-sdk' | 'sdk-off' | 'sdk';
  const enter = (mode: Mode) => {
    setOtelApiForTests(mode === 'baseline' || mode === 'sdk-off' ? null : undefined);
    if (mode === 'sdk' || mode === 'sdk-off') {
      api.context.setGlobalContextManager(contextManager.enable());
      api.trace.setGlobalTracerProvider(tracerProvider);
      api.metrics.setGlobalMeterProvider(meterProvider);
      // An application's own instrumentation (HTTP server, ...) runs code in contexts: the
      // async-hooks storage is on from then on.
      api.context.with(api.context.active(), () => undefined);
    }
  };
  const leave = (mode: Mode) => {
    if (mode !== 'sdk' && mode !== 'sdk-off') return;
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
      ? { url, protocol: 'mcp', mcpEra: 'legacy' }
      : { url, protocol: 'mcp', mcpEra: 'legacy', fetch: canned },
  );
  const args = { buying_mode: 'brief', brief: 'CTV for pet owners', brand: { domain: 'example.com' } } as const;
  const call = async () => {
    const result = await client.call('get_products', args);
    if (result.status !== 'completed') throw new Error(`unexpected ${result.status}`);
  };
  const modes: Mode[] = ['baseline', 'no-sdk', 'sdk-off', 'sdk'];
  const times = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  // CPU time per block (user + system, this process): what the calls cost, whatever else runs.
  const cpu = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (const mode of modes) {
    enter(mode);
    for (let i = 0; i < WARMUP; i++) await call();
    leave(mode);
  }
  for (let done = 0; done < CALLS; done += BLOCK) {
    for (const mode of modes) {
      enter(mode);
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await call();
        times.get(mode)?.push(performance.now() - t0);
      }
      const used = process.cpuUsage(cpu0);
      cpu.get(mode)?.push((used.user + used.system) / 1000 / BLOCK);
      leave(mode);
    }
  }
  await client.close();
  await worker.terminate();
  await tracerProvider.forceFlush();

  // Each configuration is judged against its own baseline: no SDK against no API; the hooks with
  // an SDK against the same SDK with the hooks off.
  const baselineOf: Record<Mode, Mode> = {
    baseline: 'baseline',
    'no-sdk': 'baseline',
    'sdk-off': 'baseline',
    sdk: 'sdk-off',
  };
  console.log('## Telemetry: per-call overhead of the OpenTelemetry hooks\n');
  console.log(
    `Machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' / ',
      )}. AdcpClient.call('get_products') over MCP (JSON answers) ${process.env['TELEMETRY_BENCH_LOOPBACK'] === '1' ? 'to a real SDK server in a worker thread' : "answered by an in-process canned fetch (no socket: the client's own time per call; `TELEMETRY_BENCH_LOOPBACK=1` for a real server over loopback)"}; ${CALLS} calls per configuration, interleaved in blocks of ${BLOCK} after ${WARMUP} warm-up calls each; ${exported} spans reached the no-op exporter.\n`,
  );
  console.log(
    '| configuration | median (ms) | against | ratio | CPU per call, median of blocks (ms) | CPU ratio | target | met |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const targets: Record<Mode, number | undefined> = {
    baseline: undefined,
    'no-sdk': 1.02,
    'sdk-off': undefined,
    sdk: 1.1,
  };
  const labels: Record<Mode, string> = {
    baseline: '`@opentelemetry/api` absent (hooks return at once): baseline',
    'no-sdk': 'API installed, no SDK registered',
    'sdk-off': 'SDK registered (batch processor, no-op exporter, meter provider, async-hooks context), hooks off',
    sdk: 'the same SDK, hooks on',
  };
  let allMet = true;
  const row = (mode: Mode, against: Mode, target: number | undefined) => {
    const value = median(times.get(mode) ?? []);
    const ratio = value / median(times.get(against) ?? []);
    const cpuValue = median(cpu.get(mode) ?? []);
    const cpuRatio = cpuValue / median(cpu.get(against) ?? []);
    // Met only when both the wall-clock and the CPU ratios are within the target.
    const met = target === undefined ? '' : ratio <= target && cpuRatio <= target ? 'yes' : 'no';
    if (met === 'no') allMet = false;
    console.log(
      `| ${labels[mode]} | ${value.toFixed(3)} | ${against} | ${ratio.toFixed(3)}x | ${cpuValue.toFixed(3)} | ${cpuRatio.toFixed(3)}x | ${target === undefined ? '' : `≤ ${target.toFixed(2)}x`} | ${met} |`,
    );
  };
  for (const mode of modes) row(mode, baselineOf[mode], targets[mode]);
  row('sdk', 'baseline', undefined);
  console.log(`\n${allMet ? 'All targets met.' : 'Some targets NOT met (see rows marked no).'}\n`);
}
