// `adcp inspect` start-up: from launching the command to a page a person can use. Each sample is
// a fresh `adcp inspect <agent> --port 0 --no-history --json` from the build (as `npm run
// build` ships it: tsc, the validators compiled ahead, the page copied beside it) and an
// already-running headless Chromium that
// loads the printed URL: "interactive" is the page's `data-ready` (its controls are drawn and
// listen; the agent's discovery may still be on its way), "discovered" the agent's discovery
// shown. The floor is a bare `node:http` process serving the same page files and an empty state,
// spawned and loaded the same way. Prints one Markdown section. Target: interactive within 1 s.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/inspect/browser.js';
import { buildCompiled } from './compiled-build.js';
import { median, p90 } from './stats.js';

const RUNS = 7;
const TARGET_MS = 1000;
const root = fileURLToPath(new URL('..', import.meta.url));

/** The floor: the page's own files from a bare node:http server, with an empty state. */
const FLOOR = (pageDir: string) => `
const { createServer } = await import('node:http');
const { readFile } = await import('node:fs/promises');
const dir = ${JSON.stringify(pageDir)};
const types = { html: 'text/html', js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' };
const server = createServer(async (req, res) => {
  const path = req.url === '/' ? '/index.html' : req.url.replace(/^\\/page/, '');
  if (path === '/api/state') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"agents":[]}'); return; }
  if (path === '/api/events') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.write(': x\\n\\n'); return; }
  try { const body = await readFile(dir + path); res.writeHead(200, { 'content-type': types[path.split('.').pop()] }); res.end(body); }
  catch { res.writeHead(404); res.end(); }
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: 'http://127.0.0.1:' + server.address().port + '/' })));
`;

interface Sample {
  upMs: number;
  readyMs: number;
  discoveredMs?: number;
}

async function sample(page: Page, args: string[], discover: boolean): Promise<Sample> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await firstUrl(child);
    const upMs = performance.now() - t0;
    await page.goto(url);
    await page.waitForSelector('adcp-inspector[data-ready]', { timeout: 30_000 });
    const readyMs = performance.now() - t0;
    if (!discover) return { upMs, readyMs };
    await page.waitForSelector('#discovery .discovery', { timeout: 30_000 });
    return { upMs, readyMs, discoveredMs: performance.now() - t0 };
  } finally {
    await page.goto('about:blank');
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done(undefined) : child.once('exit', done)));
  }
}

function firstUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error('no URL within 30 s')), 30_000);
    lines.on('line', (line) => {
      const url = /"url":"([^"]+)"/.exec(line)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing its URL`)));
  });
}

async function main(): Promise<void> {
  console.log('## adcp inspect: launch to an interactive page\n');
  if (!existsSync(CHROMIUM)) {
    console.log(`Not measured: no Chromium at ${CHROMIUM}.\n`);
    return;
  }
  const loadBefore = loadavg();
  const build = buildCompiled('inspect', { validators: true });
  const seller = await (await import('../src/seller/index.js')).startReferenceSeller({ port: 0 });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
  });
  try {
    const copy = spawnSync(process.execPath, [join(root, 'scripts/copy-inspect-page.mjs'), build.dir], {
      encoding: 'utf8',
    });
    if (copy.status !== 0) throw new Error(`copy-inspect-page failed: ${copy.stderr}`);
    const floorFile = join(build.dir, 'floor.mjs');
    writeFileSync(floorFile, FLOOR(join(build.dir, 'inspect', 'page')));
    // What bin/adcp.js does in an installed package (no src/): run the built main.
    const bin = join(build.dir, 'adcp.mjs');
    writeFileSync(
      bin,
      "const { main } = await import('./cli/main.js');\nprocess.exitCode = await main(process.argv.slice(2));\n",
    );
    const inspect = [bin, 'inspect', seller.mcpUrl, '--port', '0', '--no-history', '--json'];
    const page = await browser.newPage();
    // One unmeasured run of each warms the disk cache, the seller and the browser.
    await sample(page, [floorFile], false);
    await sample(page, inspect, true);
    const ours: Sample[] = [];
    const floor: Sample[] = [];
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 === 0 ? ['floor', 'ours'] : ['ours', 'floor'];
      for (const which of order) {
        if (which === 'floor') floor.push(await sample(page, [floorFile], false));
        else ours.push(await sample(page, inspect, true));
      }
    }
    const loadAfter = loadavg();
    const m = (list: Sample[], key: keyof Sample) => median(list.map((s) => s[key] ?? Number.NaN));
    const p = (list: Sample[], key: keyof Sample) => p90(list.map((s) => s[key] ?? Number.NaN));
    console.log(
      `${RUNS} samples each after one unmeasured run, interleaved (order swapped each round), against the reference seller on loopback; Chromium already running (one page, reused). Times from spawning the process. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} at the start, ${loadAfter.map((l) => l.toFixed(1)).join(' / ')} at the end. Target: \`adcp inspect\` interactive within ${TARGET_MS} ms (median).\n`,
    );
    console.log(
      '| process | URL printed (ms, median) | interactive (ms, median / p90) | agent discovered (ms, median / p90) | met |',
    );
    console.log('|---|---|---|---|---|');
    console.log(
      `| bare node:http serving the page (floor) | ${m(floor, 'upMs').toFixed(0)} | ${m(floor, 'readyMs').toFixed(0)} / ${p(floor, 'readyMs').toFixed(0)} | - | - |`,
    );
    const ready = m(ours, 'readyMs');
    const loaded = loadBefore[0] !== undefined && loadBefore[0] > 1.5;
    console.log(
      `| \`adcp inspect <url>\` | ${m(ours, 'upMs').toFixed(0)} | ${ready.toFixed(0)} / ${p(ours, 'readyMs').toFixed(0)} (${(ready / m(floor, 'readyMs')).toFixed(2)}x the floor) | ${m(ours, 'discoveredMs').toFixed(0)} / ${p(ours, 'discoveredMs').toFixed(0)} | ${ready <= TARGET_MS ? 'yes' : loaded ? `no (load ${loadBefore[0]?.toFixed(1)})` : 'no'} |`,
    );
    console.log('');
  } finally {
    await browser.close();
    await seller.close();
    build.remove();
  }
}

await main();
