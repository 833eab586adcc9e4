// Schema validation: warm request and response validation against a bare Ajv function of the
// same schema, and the first (cold) validation of a tool in a fresh process with the validators
// `npm run build` compiles ahead of time against the same tool compiled at run time (the path
// before them). Builds the package into a temporary folder beside the checkout (the built code
// finds ../shared/schemas from there), runs, and removes it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mediaBuyRequest, packageRequest } from '../src/seller/sample-requests.js';
import { CATALOG, productToWire } from '../src/seller/catalog.js';
import { replaceGeneratedBlock } from './fixtures/generated-block.js';
import { answerCapabilities, buildCapabilities } from '../src/server/tools/capabilities.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 2) => n.toFixed(d);

type SchemasModule = typeof import('../src/schemas/index.js');
type CompilerModule = typeof import('../src/schemas/bundle-compiler.js');

function build(out: string): void {
  const tsc = path.join(repoRoot, 'node_modules', '.bin', 'tsc');
  const compiled = spawnSync(tsc, ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: repoRoot, encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`tsc failed: ${compiled.stdout}${compiled.stderr}`);
  const ahead = spawnSync(process.execPath, ['scripts/compile-validators.mjs', out], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (ahead.status !== 0) throw new Error(`compile-validators failed: ${ahead.stderr}`);
  process.stderr.write(ahead.stderr);
}

/** µs per call over batches, each batch timed as a whole: the median batch. */
function perCall(fn: () => unknown, batch: number, batches = 41): number {
  for (let i = 0; i < batch; i++) fn();
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / batch);
  }
  return median(samples);
}

function sampleRequest(): Record<string, unknown> {
  const packages = CATALOG.slice(0, 3).map((p, i) => packageRequest(p.product_id, 5000 + i * 1000));
  return { ...mediaBuyRequest(packages), idempotency_key: 'bench-0000-0000-0000-000000000000' };
}

function productsResponse(count: number): Record<string, unknown> {
  const products = Array.from({ length: count }, (_, i) => {
    const wire = productToWire(CATALOG[i % CATALOG.length]!);
    return { ...wire, product_id: `${String(wire['product_id'])}_${i}` };
  });
  return { status: 'completed', products, cache_scope: 'public' };
}

/** What the reference seller answers to get_adcp_capabilities (adcp serve's configuration). */
function capabilitiesAnswer(): Record<string, unknown> {
  const document = buildCapabilities({
    releases: ['3.0', '3.1'],
    replayTtlSeconds: 86_400,
    inFlightMaxSeconds: 300,
    tools: ['get_products', 'list_creative_formats', 'create_media_buy', 'update_media_buy', 'sync_creatives'],
    webhookSigningAlg: 'ed25519',
    override: {
      account: { supported_billing: ['operator', 'agent'] },
      media_buy: {
        features: { async_media_buy: true, webhooks: true, creative_sync: true },
        channels: ['ctv', 'olv', 'display', 'podcast', 'dooh', 'social'],
      },
    },
  });
  return { status: 'completed', ...answerCapabilities(document, { adcp_version: '3.1' }) };
}

interface ColdSample {
  wall: number;
  cpu: number;
  ok: boolean;
}

const PROBE = `
const [dist, mode, tool, kind, payload] = process.argv.slice(2);
const { getValidator } = await import(dist + '/schemas/index.js');
const value = payload ? JSON.parse((await import('node:fs')).readFileSync(payload, 'utf8')) : {};
const c0 = process.cpuUsage(); const t0 = performance.now();
const v = getValidator('3.1', { precompiled: mode === 'ahead' });
const r = kind === 'request' ? v.request(tool, value) : v.response(tool, value);
const wall = performance.now() - t0; const c = process.cpuUsage(c0);
console.log(JSON.stringify({ wall, cpu: (c.user + c.system) / 1000, ok: payload ? r.ok : r.ok === false && r.issues.length > 0 }));
`;

/** A tool, which schema, and the value validated: `{}` (issues expected) or a valid answer saved in a file. */
type ColdTarget = [string, 'request' | 'response', string?];

function cold(out: string, targets: ColdTarget[], rounds: number) {
  const probe = path.join(out, 'cold-probe.mjs');
  writeFileSync(probe, PROBE);
  const dist = pathToFileURL(out).href;
  const run = (mode: string, tool: string, kind: string, payload?: string): ColdSample => {
    const args = [probe, dist, mode, tool, kind, ...(payload === undefined ? [] : [payload])];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cold probe failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as ColdSample;
  };
  const results = new Map<string, { ahead: ColdSample[]; runtime: ColdSample[] }>();
  const keyOf = ([tool, kind, payload]: ColdTarget) =>
    `${tool} ${kind}${payload === undefined ? ', `{}`' : ", the reference seller's answer"}`;
  for (const target of targets) results.set(keyOf(target), { ahead: [], runtime: [] });
  for (let i = 0; i < rounds; i++) {
    for (const target of targets) {
      const [tool, kind, payload] = target;
      const slot = results.get(keyOf(target))!;
      // Alternate which path goes first, so neither always follows the other.
      if (i % 2 === 0) {
        slot.ahead.push(run('ahead', tool, kind, payload));
        slot.runtime.push(run('runtime', tool, kind, payload));
      } else {
        slot.runtime.push(run('runtime', tool, kind, payload));
        slot.ahead.push(run('ahead', tool, kind, payload));
      }
    }
  }
  return results;
}

const load0 = loadavg()[0]!;
const out = mkdtempSync(path.join(repoRoot, '.bench-dist-'));
const lines: string[] = ['## schemas (validation)', ''];
try {
  build(out);
  const schemas = (await import(pathToFileURL(path.join(out, 'schemas', 'index.js')).href)) as SchemasModule;
  const { BundleCompiler } = (await import(
    pathToFileURL(path.join(out, 'schemas', 'bundle-compiler.js')).href
  )) as CompilerModule;
  const validator = schemas.getValidator('3.1');
  const bundle = validator.bundle;
  const bare = new BundleCompiler(bundle, { precompiled: false });

  const request = sampleRequest();
  const response = productsResponse(100);
  const cmb = bundle.tool('create_media_buy')!;
  const gp = bundle.tool('get_products')!;
  if (!validator.request('create_media_buy', request).ok) throw new Error('sample create_media_buy is not valid');
  if (!validator.response('get_products', response).ok) throw new Error('sample get_products is not valid');
  const bareRequest = bare.compile(cmb.request);
  const bareResponse = bare.compile(gp.response);
  if (bareRequest(request) !== true || bareResponse(response) !== true) throw new Error('bare Ajv disagrees');

  const warm = [
    {
      name: 'create_media_buy request (3 packages)',
      target: 50,
      ours: perCall(() => validator.request('create_media_buy', request), 2000),
      base: perCall(() => bareRequest(request), 2000),
    },
    {
      name: 'get_products response (100 products)',
      target: 1000,
      ours: perCall(() => validator.response('get_products', response), 50),
      base: perCall(() => bareResponse(response), 50),
    },
  ];
  lines.push('### Warm validation (AdCP 3.1), vs a bare Ajv function of the same schema', '');
  lines.push('| value | `AdcpValidator` median | bare Ajv median | ratio | target | met |');
  lines.push('|---|---|---|---|---|---|');
  for (const w of warm) {
    lines.push(
      `| ${w.name} | ${fmt(w.ours)} µs | ${fmt(w.base)} µs | ${fmt(w.ours / w.base)}x | ≤ ${w.target} µs | ${w.ours <= w.target ? 'yes' : 'no'} |`,
    );
  }
  lines.push(
    '',
    'Ours adds the input bounds walk (depth, size, JSON-only) and turns errors into issues; the bare function is the same Ajv code without them.',
    '',
  );

  const rounds = 11;
  // `{}` reaches only the top of a schema; a real answer reaches the blocks it carries (a large
  // schema file's parts load as they are reached), so the capabilities answer is timed too.
  const capabilitiesFile = path.join(out, 'capabilities-answer.json');
  writeFileSync(capabilitiesFile, JSON.stringify(capabilitiesAnswer()));
  if (!validator.response('get_adcp_capabilities', capabilitiesAnswer()).ok) {
    throw new Error('sample get_adcp_capabilities answer is not valid');
  }
  const targets: ColdTarget[] = [
    ['create_media_buy', 'request'],
    ['get_products', 'response'],
    ['sync_creatives', 'request'],
    ['get_adcp_capabilities', 'response'],
    ['get_adcp_capabilities', 'response', capabilitiesFile],
  ];
  const coldResults = cold(out, targets, rounds);
  lines.push('### Cold: first validation of a tool in a fresh process (release lookup included; target ≤ 30 ms)', '');
  lines.push(
    '| tool, schema, value | ahead of time: wall median (CPU) | compiled at run time: wall median (CPU) | ratio (wall) | met (wall ≤ 30 ms) | CPU ≤ 30 ms too |',
  );
  lines.push('|---|---|---|---|---|---|');
  for (const [key, { ahead, runtime }] of coldResults) {
    if (![...ahead, ...runtime].every((s) => s.ok))
      throw new Error(`${key}: the cold check did not answer as expected`);
    const a = median(ahead.map((s) => s.wall));
    const r = median(runtime.map((s) => s.wall));
    const aCpu = median(ahead.map((s) => s.cpu));
    lines.push(
      `| ${key} | ${fmt(a, 1)} (${fmt(aCpu, 1)}) ms | ${fmt(r, 1)} (${fmt(median(runtime.map((s) => s.cpu)), 1)}) ms | ${fmt(a / r)}x | ${a <= 30 ? 'yes' : 'no'} | ${aCpu <= 30 ? 'yes' : 'no'} |`,
    );
  }
  lines.push(
    '',
    `${rounds} fresh processes per cell, the two paths alternating; each validates the value right after importing \`adcp-wire/schemas\`. ` +
      `The target is the caller's wait (wall time); CPU is user + system of the process during the check (it counts V8's helper threads, busy after start-up whatever runs: BENCHMARKS.md). Load average at the start: ${fmt(load0, 1)}, at the end: ${fmt(loadavg()[0]!, 1)}.`,
    '',
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.log(lines.join('\n'));
const results = path.join(repoRoot, 'bench', 'results', 'schemas.md');
const existing = existsSync(results) ? readFileSync(results, 'utf8') : undefined;
writeFileSync(results, replaceGeneratedBlock(existing, 'schemas', lines.slice(2).join('\n')));
