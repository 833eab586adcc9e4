import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { AdcpClient } from '../../src/client/index.js';
import { fastSeller } from '../cli/seller.js';

// The README quotes examples/*.ts (test/build/readme-examples.test.ts); these run them, from the
// sources (examples/tsconfig.json maps `adcp-wire/*` to src/, which tsx reads), so the README's
// code does what its comments say, not only compiles.
const root = resolve(import.meta.dirname, '..', '..');
const env = { ...process.env, TSX_TSCONFIG_PATH: 'examples/tsconfig.json' };
const run = promisify(execFile);
const closers: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const close of closers) await close();
});

test('examples/buy.ts buys from the reference seller: products, then a media buy followed to the end', async () => {
  const seller = await fastSeller();
  closers.push(() => seller.close());
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/buy.ts', seller.mcpUrl], {
    cwd: root,
    env,
    timeout: 90_000,
  });
  assert.match(stdout, /^\d+ products\n(completed|submitted|working)\n$/);
});

test('examples/sell.ts serves create_media_buy: a known product is bought, an unknown one refused', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/sell.ts'], {
    cwd: root,
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  closers.push(async () => {
    if (child.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`sell.ts printed no URL in 60 s: ${out}`)), 60_000);
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const found = /MCP (http:\/\/\S+),/.exec(out)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        ok(found);
      }
    });
  });
  const client = new AdcpClient({ url, protocol: 'mcp' });
  closers.unshift(() => client.close());
  const order = (productId: string) => ({
    account: { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' },
    brand: { domain: 'acmeoutdoor.example' },
    start_time: 'asap' as const,
    end_time: '2027-03-31T23:59:59Z',
    packages: [{ product_id: productId, pricing_option_id: 'p', budget: 500 }],
  });
  const bought = await client.call('create_media_buy', order('olv_pets'));
  assert.equal(bought.status, 'completed');
  assert.equal((bought.data as { media_buy_id?: string } | undefined)?.media_buy_id, 'mb_1');
  const refused = await client.call('create_media_buy', order('nope'));
  assert.equal(refused.status, 'failed');
  assert.equal(refused.status === 'failed' ? refused.error.code : '', 'PRODUCT_NOT_FOUND');
  // The README's "Verify" line calls get_products on this seller.
  const products = await client.call('get_products', { buying_mode: 'brief', brief: 'sports' });
  assert.equal(products.status, 'completed');
});
