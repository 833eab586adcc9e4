// Generated types, their cost to a user: the same consumer file type-checked with TypeScript 5
// on the typed path (tool names as literals: request and response types from the generated 3.1
// types) and on the untyped path (tool names as `string`), against the package's emitted
// declarations. Target (issue 15): typed ≤ 1.5x the untyped path in time and memory.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceGeneratedBlock } from './fixtures/generated-block.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 2) => n.toFixed(d);
const ROUNDS = 5;

/** The calls both files make; `typed` names the tool as a literal, `untyped` through a `string`. */
const CALLS: Array<[string, string, string]> = [
  ['get_adcp_capabilities', '{}', 'adcp?.major_versions'],
  [
    'get_products',
    "{ buying_mode: 'brief', brief: 'CTV sports', brand: { domain: 'example.com' } }",
    'products?.[0]?.name',
  ],
  ['list_creative_formats', '{}', 'formats?.[0]?.name'],
  [
    'create_media_buy',
    "{ brand: { domain: 'example.com' }, start_time: 'asap', end_time: '2027-01-01T00:00:00Z' }",
    'context',
  ],
  ['get_media_buy_delivery', "{ media_buy_ids: ['mb_1'] }", 'currency'],
  ['sync_creatives', '{ creatives: [], dry_run: true }', 'context'],
  ['list_creatives', '{}', 'creatives?.[0]?.creative_id'],
  ['update_media_buy', "{ media_buy_id: 'mb_1', paused: true }", 'context'],
  ['get_signals', "{ signal_spec: 'sports fans' }", 'signals?.[0]?.name'],
  ['activate_signal', "{ signal_agent_segment_id: 'seg_1', destinations: [] }", 'context'],
];

function consumer(typed: boolean): string {
  const head = [
    "import { AdcpClient } from 'adcp-wire/client';",
    "import { createAdcpServer } from 'adcp-wire/server';",
    "const client = new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });",
    'export async function run(): Promise<unknown[]> {',
    '  const out: unknown[] = [];',
  ];
  const body = CALLS.map(([tool, args, read], i) =>
    typed
      ? `  const r${i} = await client.call('${tool}', ${args});\n  if (r${i}.status === 'completed') out.push(r${i}.data?.${read});`
      : `  const t${i}: string = '${tool}';\n  const r${i} = await client.call(t${i}, ${args});\n  if (r${i}.status === 'completed') out.push(r${i}.data?.['${read.split(/[?.[]/)[0]}']);`,
  );
  const tail = [
    '  return out;',
    '}',
    "export const server = createAdcpServer({ tools: [{ name: 'get_products', description: 'x', handler: () => ({ products: [] }) }] });",
  ];
  return [...head, ...body, ...tail, ''].join('\n');
}

interface Sample {
  seconds: number;
  mb: number;
}

function check(dir: string, file: string): Sample {
  const tsc5 = path.join(repoRoot, 'node_modules', 'typescript5', 'bin', 'tsc');
  const run = spawnSync(
    process.execPath,
    [tsc5, '-p', path.join(dir, `tsconfig.${file}.json`), '--extendedDiagnostics'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`tsc5 ${file}: ${run.stdout}${run.stderr}`);
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+([\\d.]+)`, 'm').exec(run.stdout)?.[1]);
  return { seconds: field('Total time'), mb: field('Memory used') / 1024 };
}

const load0 = loadavg()[0]!;
const work = mkdtempSync(path.join(repoRoot, '.bench-types-'));
const lines = ['## types (TypeScript 5 type-check cost of the generated types)', ''];
try {
  const pkgDir = path.join(work, 'node_modules', 'adcp-wire');
  mkdirSync(pkgDir, { recursive: true });
  copyFileSync(path.join(repoRoot, 'package.json'), path.join(pkgDir, 'package.json'));
  const tsc = path.join(repoRoot, 'node_modules', '.bin', 'tsc');
  const emit = spawnSync(
    tsc,
    [
      '-p',
      'tsconfig.build.json',
      '--emitDeclarationOnly',
      '--sourceMap',
      'false',
      '--inlineSources',
      'false',
      '--outDir',
      path.join(pkgDir, 'dist'),
    ],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  if (emit.status !== 0) throw new Error(`tsc failed: ${emit.stdout}${emit.stderr}`);
  writeFileSync(path.join(work, 'package.json'), '{"type":"module","private":true}');
  const files = { empty: 'export {};\n', untyped: consumer(false), typed: consumer(true) };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(work, `${name}.ts`), text);
    writeFileSync(
      path.join(work, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
        },
        files: [`${name}.ts`],
      }),
    );
  }
  const samples: Record<string, Sample[]> = { empty: [], untyped: [], typed: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of ['empty', 'untyped', 'typed']) samples[name]!.push(check(work, name));
  }
  const m = (name: string) => ({
    s: median(samples[name]!.map((x) => x.seconds)),
    mb: median(samples[name]!.map((x) => x.mb)),
  });
  const [empty, untyped, typed] = [m('empty'), m('untyped'), m('typed')];
  lines.push(
    '| file | tsc 5 total time (median) | memory (median) | time vs untyped | memory vs untyped | met (≤ 1.5x both) |',
    '|---|---|---|---|---|---|',
    `| empty file | ${fmt(empty.s)} s | ${fmt(empty.mb, 0)} MB | | | |`,
    `| untyped calls (tool name a \`string\`) | ${fmt(untyped.s)} s | ${fmt(untyped.mb, 0)} MB | 1.00x | 1.00x | |`,
    `| typed calls (tool name a literal) | ${fmt(typed.s)} s | ${fmt(typed.mb, 0)} MB | ${fmt(typed.s / untyped.s)}x | ${fmt(typed.mb / untyped.mb)}x | ${typed.s / untyped.s <= 1.5 && typed.mb / untyped.mb <= 1.5 ? 'yes' : 'no'} |`,
    '',
    `${CALLS.length} calls to different tools per file plus one server, against the emitted declarations (\`skipLibCheck\`, strict, NodeNext); ` +
      `typed vs an empty file: ${fmt(typed.s / empty.s)}x time, ${fmt(typed.mb / empty.mb)}x memory. ${ROUNDS} rounds, the three files alternating; ` +
      `"Total time" and "Memory used" of \`tsc --extendedDiagnostics\`. Load average at the start: ${fmt(load0, 1)}, at the end: ${fmt(loadavg()[0]!, 1)}.`,
    '',
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(lines.join('\n'));
const results = path.join(repoRoot, 'bench', 'results', 'types.md');
const existing = existsSync(results) ? readFileSync(results, 'utf8') : undefined;
writeFileSync(results, replaceGeneratedBlock(existing, 'types', lines.slice(2).join('\n')));
