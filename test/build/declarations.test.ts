// test-timeout-ms: 900000
// The package as a user gets it: `npm run build`, then a small consumer that imports every entry
// point through package.json `exports` is compiled with TypeScript 5 (moduleResolution NodeNext,
// strict, skipLibCheck off, so the emitted declarations are checked too). The source maps the
// build ships carry their sources (the package does not ship src/).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
  files: string[];
};
const entries = Object.keys(pkg.exports).filter((e) => e !== './package.json');
const specifier = (entry: string) => (entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`);

const CONSUMER = `
${entries.map((e, i) => `import * as entry${i} from '${specifier(e)}';`).join('\n')}
import { AdcpClient } from '${pkg.name}/client';
import { validateWebhookEnvelope, type TaskResult, type WebhookEnvelopeCheck } from '${pkg.name}';
import { runRequestSigningVector } from '${pkg.name}/testing';
import { createWebhookHandler, type WebhookHandlerOptions } from '${pkg.name}/webhooks';
import { MemoryDedupStore, type DedupStore } from '${pkg.name}/store';

export const all = [${entries.map((_, i) => `entry${i}`).join(', ')}];
const client = new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });
export async function products(): Promise<TaskResult> {
  const result = await client.call('get_products', { brief: 'CTV sports' });
  if (result.status === 'completed') console.log(result.data);
  return result;
}
export const check: WebhookEnvelopeCheck = validateWebhookEnvelope({});
const dedup: DedupStore = new MemoryDedupStore();
export const options: Pick<WebhookHandlerOptions, 'dedup'> = { dedup };
export const handler: typeof createWebhookHandler = createWebhookHandler;
export const vectors: typeof runRequestSigningVector = runRequestSigningVector;
`;

// Typed by tool name: every `@ts-expect-error` line must be an error, or tsc fails ("unused").
const TYPED = `
import { AdcpClient } from '${pkg.name}/client';
import { adcpTool, createAdcpServer } from '${pkg.name}/server';
import type { GetProductsResponse, ToolRequest } from '${pkg.name}/schemas';

const client = new AdcpClient({ url: 'http://127.0.0.1:1/mcp', protocol: 'mcp' });
export async function typed(): Promise<number> {
  const result = await client.call('get_products', { buying_mode: 'brief', brief: 'CTV' });
  const data: GetProductsResponse | undefined = result.status === 'completed' ? result.data : undefined;
  // @ts-expect-error: not a get_products field
  await client.call('get_products', { buying_mode: 'brief', breif: 'CTV' });
  // @ts-expect-error: buying_mode is 'brief' | 'wholesale' | 'refine'
  await client.call('get_products', { buying_mode: 'retail' });
  // @ts-expect-error: nested objects are checked in full (a brand needs its domain)
  await client.call('get_products', { buying_mode: 'brief', brand: { brand_id: 'x' } });
  // @ts-expect-error: a literal that is no AdCP tool (a typo) does not compile
  await client.call('get_prodcts', { buying_mode: 'brief' });
  const loose = await client.call('not_an_adcp_tool' as string, { anything: 1 });
  const buy = await client.call('create_media_buy', { start_time: 'asap' });
  const waited = buy.status === 'submitted' ? await client.waitFor(buy) : buy;
  const id: string | undefined = waited.status === 'completed' ? waited.data?.media_buy_id : undefined;
  const said: string | undefined = waited.status === 'failed' ? waited.error.message : id;
  const dynamic = await client.call('get_products' as string, { anything: 1 });
  const full = { buying_mode: 'wholesale' } satisfies ToolRequest<'get_products'>;
  return (data?.products?.length ?? 0) + (loose.data === undefined ? 0 : 1) + dynamic.status.length + full.buying_mode.length + (said?.length ?? 0);
}
export const tool = adcpTool({
  name: 'get_products',
  description: 'Products.',
  handler: async (args) => ({ products: args.buying_mode === 'wholesale' ? [] : [] }),
});
export const badTool = adcpTool({
  name: 'get_products',
  description: 'Products.',
  // @ts-expect-error: products must be an array
  handler: () => ({ products: 'none' }),
});
export const server = createAdcpServer({ tools: [tool, { name: 'x', description: 'x', handler: () => ({}) }] });
`;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else yield full;
  }
}

describe('the built package', { timeout: 900_000 }, () => {
  let dir = '';
  before(() => {
    const build = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, encoding: 'utf8', timeout: 600_000 });
    assert.equal(build.status, 0, build.stdout + build.stderr);
    dir = mkdtempSync(path.join(tmpdir(), 'adcp-ts5-consumer-'));
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(repoRoot, path.join(dir, 'node_modules', pkg.name), 'dir');
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module","private":true}');
    writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(path.join(dir, 'typed.ts'), TYPED);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
        },
        files: ['consumer.ts', 'typed.ts'],
      }),
    );
  });
  after(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('compiles a consumer of every entry point with TypeScript 5 (NodeNext)', () => {
    const tsc5 = path.join(repoRoot, 'node_modules', 'typescript5', 'bin', 'tsc');
    const version = spawnSync(process.execPath, [tsc5, '--version'], { encoding: 'utf8' });
    assert.match(version.stdout, /^Version 5\./);
    const run = spawnSync(process.execPath, [tsc5, '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  it('types AdcpClient.call and adcpTool by tool name: each wrong field is a TypeScript 5 error', () => {
    // The same file without its @ts-expect-error lines must fail on exactly those lines.
    const bare = TYPED.split('\n').filter((line) => !line.includes('@ts-expect-error'));
    writeFileSync(path.join(dir, 'typed.ts'), bare.join('\n'));
    try {
      const tsc5 = path.join(repoRoot, 'node_modules', 'typescript5', 'bin', 'tsc');
      const run = spawnSync(process.execPath, [tsc5, '-p', dir], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
      const lines = [...run.stdout.matchAll(/^typed\.ts\((\d+),\d+\): error/gm)].map((m) => bare[Number(m[1]) - 1]);
      assert.deepEqual(
        lines.map((l) => l?.trim().slice(0, 40)),
        [
          "await client.call('get_products', { buyi",
          "await client.call('get_products', { buyi",
          "await client.call('get_products', { buyi",
          "await client.call('get_prodcts', { buyin",
          "handler: () => ({ products: 'none' }),",
        ],
        run.stdout,
      );
    } finally {
      writeFileSync(path.join(dir, 'typed.ts'), TYPED);
    }
  });

  it('compiles with skipLibCheck off in an app without the optional drivers or their types', () => {
    // Issue 32 item 15: an app that never uses SQLite, PostgreSQL or Express must not need
    // better-sqlite3, pg, express or their @types to type-check against the declarations. The app
    // gets the package and every other installed package, but none of those (nor OpenTelemetry,
    // an optional peer); symlinks are preserved so nothing resolves through the checkout's own
    // node_modules. Every entry is imported, `adcp-wire/store/pg` included.
    const lean = mkdtempSync(path.join(tmpdir(), 'adcp-lean-consumer-'));
    try {
      const modules = path.join(lean, 'node_modules');
      const own = path.join(modules, pkg.name);
      mkdirSync(own, { recursive: true });
      symlinkSync(path.join(repoRoot, 'dist'), path.join(own, 'dist'), 'dir');
      writeFileSync(path.join(own, 'package.json'), readFileSync(path.join(repoRoot, 'package.json')));
      const denied = /^(express|pg|pg-.*|better-sqlite3|@opentelemetry\/.*|@types\/(?!node$).*)$/;
      const installed = path.join(repoRoot, 'node_modules');
      for (const name of readdirSync(installed)) {
        if (name.startsWith('.') || name === pkg.name) continue;
        const names = name.startsWith('@')
          ? readdirSync(path.join(installed, name)).map((n) => `${name}/${n}`)
          : [name];
        for (const full of names.filter((n) => !denied.test(n))) {
          mkdirSync(path.dirname(path.join(modules, full)), { recursive: true });
          symlinkSync(path.join(installed, full), path.join(modules, full), 'dir');
        }
      }
      const used = entries;
      writeFileSync(path.join(lean, 'package.json'), '{"type":"module","private":true}');
      writeFileSync(
        path.join(lean, 'app.ts'),
        `${used.map((e, i) => `import * as entry${i} from '${specifier(e)}';`).join('\n')}\nexport const all = [${used.map((_, i) => `entry${i}`).join(', ')}];\n`,
      );
      writeFileSync(
        path.join(lean, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            noEmit: true,
            skipLibCheck: false,
            preserveSymlinks: true,
            types: ['node'],
          },
          files: ['app.ts'],
        }),
      );
      const tsc5 = path.join(repoRoot, 'node_modules', 'typescript5', 'bin', 'tsc');
      const run = spawnSync(process.execPath, [tsc5, '-p', lean], { cwd: lean, encoding: 'utf8', timeout: 600_000 });
      assert.equal(run.status, 0, run.stdout + run.stderr);
    } finally {
      rmSync(lean, { recursive: true, force: true });
    }
  });

  it('ships source maps that carry their sources', () => {
    assert.deepEqual(pkg.files.includes('src'), false, 'src/ is not shipped, so the maps must hold it');
    let maps = 0;
    for (const file of files(path.join(repoRoot, 'dist'))) {
      if (!file.endsWith('.js.map')) continue;
      const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      assert.equal(map.sourcesContent?.length, map.sources.length, `${path.relative(repoRoot, file)}: sourcesContent`);
      maps += 1;
    }
    assert.ok(maps > 50, `expected the build's source maps, found ${maps}`);
  });
});
