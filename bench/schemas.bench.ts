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

interface ColdSample {
  wall: number;
  cpu: number;
  ok: boolean;
}

const PROBE = `
const [dist, mode, tool, kind] = process.argv.slice(2);
const { getValidator } = await import(dist + '/schemas/index.js');
const c0 = process.cpuUsage(); const t0 = performance.now();
const v = getValidator('3.1', { precompiled: mode === 'ahead' });
const r = kind === 'request' ? v.request(tool, {}) : v.response(tool, {});
const wall = performance.now() - t0; const c = process.cpuUsage(c0);
console.log(JSON.stringify({ wall, cpu: (c.user + c.system) / 1000, ok: r.ok === false && r.issues.length > 0 }));
`;

function cold(out: string, targets: Array<[string, 'request' | 'response']>, rounds: number) {
  const probe = path.join(out, 'cold-probe.mjs');
  writeFileSync(probe, PROBE);
  const dist = pathToFileURL(out).href;
  const run = (mode: string, tool: string, kind: string): ColdSample => {
    const r = spawnSync(process.execPath, [probe, dist, mode, tool, kind], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cold probe failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as ColdSample;
  };
  const results = new Map<string, { ahead: ColdSample[]; runtime: ColdSample[] }>();
  for (const [tool, kind] of targets) results.set(`${tool} ${kind}`, { ahead: [], runtime: [] });
  for (let i = 0; i < rounds; i++) {
    for (const [tool, kind] of targets) {
      const slot = results.get(`${tool} ${kind}`)!;
      // Alternate which path goes first, so neither always follows the other.
      if (i % 2 === 0) {
        slot.ahead.push(run('ahead', tool, kind));
        slot.runtime.push(run('runtime', tool, kind));
      } else {
        slot.runtime.push(run('runtime', tool, kind));
        slot.ahead.push(run('ahead', tool, kind));
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
  const targets: Array<[string, 'request' | 'response']> = [
    ['create_media_buy', 'request'],
    ['get_products', 'response'],
    ['sync_creatives', 'request'],
    ['get_adcp_capabilities', 'response'],
  ];
  const coldResults = cold(out, targets, rounds);
  lines.push('### Cold: first validation of a tool in a fresh process (release lookup included; target ≤ 30 ms)', '');
  lines.push(
    '| tool, schema | ahead of time: CPU median (wall) | compiled at run time: CPU median (wall) | ratio (CPU) | met (CPU ≤ 30 ms) |',
  );
  lines.push('|---|---|---|---|---|');
  for (const [key, { ahead, runtime }] of coldResults) {
    if (![...ahead, ...runtime].every((s) => s.ok)) throw new Error(`${key}: the cold check did not report issues`);
    const a = median(ahead.map((s) => s.cpu));
    const r = median(runtime.map((s) => s.cpu));
    lines.push(
      `| ${key} | ${fmt(a, 1)} (${fmt(median(ahead.map((s) => s.wall)), 1)}) ms | ${fmt(r, 1)} (${fmt(median(runtime.map((s) => s.wall)), 1)}) ms | ${fmt(a / r)}x | ${a <= 30 ? 'yes' : 'no'} |`,
    );
  }
  lines.push(
    '',
    `${rounds} fresh processes per cell, the two paths alternating; each validates \`{}\` (issues expected) right after importing \`adcp-wire/schemas\`. ` +
      `CPU is user + system of the process during the check (it counts V8's helper threads too). Load average at the start: ${fmt(load0, 1)}, at the end: ${fmt(loadavg()[0]!, 1)}.`,
    '',
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
console.log(lines.join('\n'));
const results = path.join(repoRoot, 'bench', 'results', 'schemas.md');
const existing = existsSync(results) ? readFileSync(results, 'utf8') : undefined;
writeFileSync(results, replaceGeneratedBlock(existing, 'schemas', lines.slice(2).join('\n')));
