// test-timeout-ms: 300000
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startReferenceSeller } from '../../src/seller/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));

/** Runs `bin/adcp.js` as a real process (bounded by a timeout); resolves with its exit code and output. */
function adcp(
  args: string[],
  timeout = 60_000,
  nodeArgs: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, BIN, ...args],
      { timeout, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('bin/adcp.js as a real process', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await startReferenceSeller({ port: 0, host: '127.0.0.1' });
  });
  after(async () => seller.close());

  it('prints the commands for --help and exits 0', async () => {
    const run = await adcp(['--help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: adcp <command>/);
    assert.match(run.stdout, /^  demo /m);
  });

  it('exits 2 on a usage error', async () => {
    const run = await adcp(['call']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /missing <url>/);
  });

  it('calls a seller and prints JSON', async () => {
    const run = await adcp(['call', seller.mcpUrl, 'get_products', '{"buying_mode":"brief","brief":"pets"}', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { status: string; data: { products: { product_id: string }[] } };
    assert.equal(out.status, 'completed');
    assert.ok(out.data.products.some((p) => p.product_id === 'olv_pets'));
  });

  it('exits 1 and names the step when a step does not do what it should', async () => {
    // The fault comes from outside the product: a preload answers the buyer's A2A get_products
    // with a JSON-RPC error; every other request goes through.
    const preload = new URL('./fail-a2a-products.mjs', import.meta.url).href;
    const run = await adcp(['demo'], 90_000, ['--import', preload]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /\[3\/6\] get_products \(A2A\)\n +FAIL: expected the same products, got error: get_products at \S+\/a2a: JSON-RPC error -32603 "fault injected by the test"/,
    );
    assert.match(run.stdout, /^3 +get_products \(A2A\) .* FAIL /m);
    assert.equal((run.stdout.match(/^\d +.* ok +\d/gm) ?? []).length, 5, 'the other five steps pass');
    assert.match(run.stdout, /^1 of 6 steps did not do what they should\.$/m);
    assert.match(run.stdout, /removed \S+adcp-demo-/);
  });

  it('runs the demo to a passing JSON summary', async () => {
    const run = await adcp(['demo', '--json'], 90_000);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const summary = JSON.parse(run.stdout) as { ok: boolean; steps: { ok: boolean }[]; state_removed: boolean };
    assert.equal(summary.ok, true);
    assert.equal(summary.steps.length, 6);
    assert.equal(summary.state_removed, true);
  });
});
