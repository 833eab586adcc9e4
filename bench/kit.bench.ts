// The media-buy kit's cost (issue 31, Target): CPU per call of a seller serving the kit's
// create_media_buy then get_media_buys (by id) against a hand-written createAdcpServer tool pair
// doing the same store work (the same KitRecords reads and writes, on a SQLite file of its own).
// Each seller runs in a child process of its own (the same server options, an in-memory
// idempotency store); the official MCP client calls them from this process. CPU is each child's
// process.cpuUsage() around each batch, batches interleaved (the order turns each round).
// Target: the kit <= 1.2x the hand-written tools. Prints one Markdown section.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_KIT_ROUNDS ?? 20);
const BATCH = Number(process.env.BENCH_KIT_BATCH ?? 50);
const WARMUP = Number(process.env.BENCH_KIT_WARMUP ?? 300);
if (process.argv[2] === 'serve') await serve(process.argv[3] as 'kit' | 'hand', process.argv[4] as string);
else await main();

/** A child: one seller (the kit's tools or the hand-written pair) answering `cpu` with its CPU so far. */
async function serve(which: 'kit' | 'hand', dir: string): Promise<void> {
  const { createAdcpServer } = await import('../src/server/create-adcp-server.js');
  const { MemoryIdempotencyStore } = await import('../src/store/memory-idempotency-store.js');
  const { createMediaBuyKit, SqliteKitRecords, accountIdOf } = await import('../src/kit/index.js');
  const { adcpError } = await import('../src/server/tools/adcp-error.js');
  type JsonObject = import('../src/core/types.js').JsonObject;
  const records = new SqliteKitRecords({ path: join(dir, `${which}.db`) });
  // The kit tests' product (test/kit/kit-harness.ts): guaranteed display at a fixed CPM.
  const { kitProduct } = await import('../test/kit/kit-harness.js');
  const products = [kitProduct()];
  const kitTools = createMediaBuyKit({ records, seller: { products: () => products } }).tools;
  // The hand-written pair: what a seller writes without the kit, with the kit's store calls
  // (account, seeded product, controller directive, the buy written then read back; a get per id).
  const hand = [
    {
      name: 'create_media_buy',
      description: 'Create a media buy.',
      handler: async (args: JsonObject, ctx: { principal: string }) => {
        const account = args.account as JsonObject;
        const accountId = accountIdOf(account);
        const stored = await records.get(ctx.principal, 'account', accountId);
        if (stored !== undefined && stored.body.status !== 'active') throw adcpError('ACCOUNT_SUSPENDED');
        const pkgs = args.packages as JsonObject[];
        const out: JsonObject[] = [];
        for (const [i, pkg] of pkgs.entries()) {
          const product =
            (await records.get(ctx.principal, 'product', String(pkg.product_id)))?.body ??
            products.find((p) => p.product_id === pkg.product_id);
          if (product === undefined) throw adcpError('PRODUCT_NOT_FOUND');
          out.push({
            package_id: `pkg_${i + 1}`,
            product_id: pkg.product_id,
            pricing_option_id: pkg.pricing_option_id,
            budget: pkg.budget,
            currency: 'USD',
            creative_assignments: [],
            paused: false,
          });
        }
        await records.get(ctx.principal, 'directive', 'create_media_buy');
        const id = `mb_${String(args.idempotency_key)}`;
        const at = new Date().toISOString();
        const body = {
          media_buy_id: id,
          status: 'pending_creatives',
          currency: 'USD',
          total_budget: out.reduce((s, p) => s + Number(p.budget), 0),
          start_time: at,
          end_time: args.end_time,
          confirmed_at: at,
          created_at: at,
          updated_at: at,
          revision: 1,
          packages: out,
        };
        if (!(await records.put(ctx.principal, 'media_buy', id, body, 0))) throw adcpError('CONFLICT');
        const saved = (await records.get(ctx.principal, 'media_buy', id))?.body ?? body;
        const { status, ...rest } = saved;
        return { ...rest, media_buy_status: status, valid_actions: ['pause', 'cancel'] };
      },
    },
    {
      name: 'get_media_buys',
      description: 'Media buys by id.',
      handler: async (args: JsonObject, ctx: { principal: string }) => {
        const found: JsonObject[] = [];
        for (const id of args.media_buy_ids as string[]) {
          const buy = await records.get(ctx.principal, 'media_buy', id);
          if (buy !== undefined) found.push({ ...buy.body, valid_actions: ['pause', 'cancel'] });
        }
        return { media_buys: found, pagination: { has_more: false } };
      },
    },
  ];
  const server = await createAdcpServer({
    tools:
      which === 'kit' ? kitTools.filter((t) => t.name === 'create_media_buy' || t.name === 'get_media_buys') : hand,
    idempotency: { store: new MemoryIdempotencyStore() },
  }).listen({ port: 0, host: '127.0.0.1' });
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: (user + system) / 1000 });
    } else if (message === 'stop') void server.close().then(() => records.close().then(() => process.exit(0)));
  });
  process.send?.({ url: server.mcpUrl });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-bench-kit-'));
  const self = fileURLToPath(import.meta.url);
  const start = (which: string) =>
    new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
      const child = fork(self, ['serve', which, dir], { execArgv: ['--import', 'tsx'] });
      child.once('message', (m) => resolve({ child, url: (m as { url: string }).url }));
      child.once('exit', (code) => reject(new Error(`${which} exited ${code}`)));
    });
  const cpuOf = (child: ChildProcess) =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { cpu: number }).cpu));
      child.send('cpu');
    });
  const sellers = { kit: await start('kit'), hand: await start('hand') };
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const connect = async (url: string) => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  };
  const clients = { kit: await connect(sellers.kit.url), hand: await connect(sellers.hand.url) };
  const account = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };
  /** One call pair: create a buy, then read it back by id. */
  const pair = async (which: 'kit' | 'hand') => {
    const client = clients[which];
    const created = (
      await client.callTool({
        name: 'create_media_buy',
        arguments: {
          account,
          brand: account.brand,
          start_time: 'asap',
          end_time: '2099-06-30T23:59:59Z',
          packages: [{ product_id: 'news_display', pricing_option_id: 'cpm_fixed', budget: 5000 }],
          idempotency_key: randomUUID(),
        },
      })
    ).structuredContent as { media_buy_id?: string };
    if (typeof created.media_buy_id !== 'string') throw new Error(`${which}: ${JSON.stringify(created)}`);
    const read = (
      await client.callTool({ name: 'get_media_buys', arguments: { media_buy_ids: [created.media_buy_id] } })
    ).structuredContent as { media_buys?: unknown[] };
    if (read.media_buys?.length !== 1) throw new Error(`${which}: ${JSON.stringify(read)}`);
  };
  const load = loadavg()[0]!.toFixed(1);
  for (let i = 0; i < WARMUP; i += 1) {
    await pair('kit');
    await pair('hand');
  }
  const perPair: Record<'kit' | 'hand', number[]> = { kit: [], hand: [] };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const got: Record<string, number> = {};
    for (const which of round % 2 === 0 ? (['kit', 'hand'] as const) : (['hand', 'kit'] as const)) {
      const before = await cpuOf(sellers[which].child);
      for (let i = 0; i < BATCH; i += 1) await pair(which);
      got[which] = ((await cpuOf(sellers[which].child)) - before) / BATCH;
      perPair[which].push(got[which]);
    }
    ratios.push((got.kit as number) / (got.hand as number));
  }
  for (const client of Object.values(clients)) await client.close();
  for (const { child } of Object.values(sellers)) {
    child.removeAllListeners('exit');
    await new Promise((resolve) => (child.once('exit', resolve), child.send('stop')));
  }
  rmSync(dir, { recursive: true, force: true });
  const kit = median(perPair.kit);
  const hand = median(perPair.hand);
  const ratio = median(ratios);
  console.log('## Media-buy kit (CPU per call over a hand-written tool)\n');
  console.log(
    `${ROUNDS} rounds of ${BATCH} call pairs per seller (create_media_buy, then get_media_buys by id) after ${WARMUP} warm-up pairs each, batches interleaved (order turned each round), official MCP client over loopback, each seller in its own process on its own SQLite file (SqliteKitRecords), CPU from its process.cpuUsage(); load average ${load} at the start.\n`,
  );
  console.log(
    '| measure | hand-written (ms CPU per pair) | kit (ms CPU per pair) | ratio (median of rounds) | target | met |',
  );
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| create_media_buy + get_media_buys | ${hand.toFixed(3)} | ${kit.toFixed(3)} | ${ratio.toFixed(2)}x | ≤ 1.20x | ${ratio <= 1.2 ? 'yes' : '**no**'} |`,
  );
}
