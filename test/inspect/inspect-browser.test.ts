// test-timeout-ms: 600000
/**
 * `adcp inspect` in a real browser (headless Chromium), against the reference seller (`adcp
 * serve` and `adcp inspect` both started as the commands a user runs) and a seller built on the
 * incumbent's framework (`@adcp/sdk`, inspector in this process): discover, fill the form
 * generated from the request schema, call, see a validation error at its field, buy media and
 * follow the submitted create_media_buy to completion with its webhook beside it. Each step's
 * screenshot is written to .tmp/inspect/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { startInspector } from '../../src/inspect/index.js';
import { startFrameworkSeller, type FrameworkSeller } from '../peers/adcp-sdk/seller.js';
import { browserMissing, launchChromium, shot, type OpenBrowser } from './browser.js';

const skip = browserMissing();
const STEP_MS = 30_000;

/** Picks a tool and waits for its form (built from the request schema of the negotiated release). */
async function pickTool(page: Page, tool: string): Promise<void> {
  await page.selectOption('#tool-select', tool);
  await page.locator(`schema-form[data-tool="${tool}"]`).waitFor();
}

/** Fills create_media_buy through the generated form, field by field, as a person would. */
async function fillMediaBuy(page: Page, productId: string): Promise<void> {
  await pickTool(page, 'create_media_buy');
  await page.locator('[data-pointer="/account"] > .control > select').selectOption({ label: 'brand + operator' });
  await page.fill('[data-pointer="/account/brand/domain"] input', 'acmeoutdoor.example');
  await page.fill('[data-pointer="/account/operator"] input', 'pinnacle-agency.example');
  await page.fill('[data-pointer="/brand/domain"] input', 'acmeoutdoor.example');
  await page.locator('[data-pointer="/start_time"] > .control > select').selectOption({ label: '"asap"' });
  await page.fill('[data-pointer="/end_time"] input', '2099-12-31T23:59:59Z');
  await page.locator('schema-form > .root > details.optional > summary').click();
  await page.getByRole('button', { name: 'Add packages item' }).click();
  await page.fill('[data-pointer="/packages/0/product_id"] input', productId);
  await page.fill('[data-pointer="/packages/0/pricing_option_id"] input', `${productId}-cpm`);
  await page.fill('[data-pointer="/packages/0/budget"] input', '25000');
}

interface Agent {
  url: string;
  productId: string;
  /** The seller's published JWKS: its webhooks are RFC 9421-signed (else the legacy HMAC). */
  webhookJwks?: string;
  close(): Promise<void>;
}

/** The inspector's page, however it was started. */
interface Page0 {
  url: string;
  close(): Promise<unknown>;
}

/** In this process, following tasks every 300-600 ms. */
async function inProcess(agent: Agent): Promise<Page0> {
  return startInspector({
    port: 0,
    agents: [{ url: agent.url, ...(agent.webhookJwks !== undefined ? { webhookJwks: agent.webhookJwks } : {}) }],
    pollMs: [300, 600],
  });
}

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));

/**
 * `adcp ARGS --json` as a user runs it (bin/adcp.js, from the sources here): resolves with its
 * first JSON line once printed, and a close() that stops it with Ctrl-C's signal.
 */
async function command(args: string[]): Promise<{ json: Record<string, unknown>; close: () => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, ...args, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGINT');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  try {
    const json = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`adcp ${args[0]}: no JSON line in 90 s; ${err}`)), 90_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        clearTimeout(timer);
        resolve(JSON.parse(line) as Record<string, unknown>);
      });
      child.once('exit', (code) => reject(new Error(`adcp ${args[0]} exited with ${code}: ${err}`)));
    });
    return { json, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function scenario(
  name: string,
  start: () => Promise<Agent>,
  webhookScheme: 'hmac' | 'rfc9421',
  launch: (agent: Agent) => Promise<Page0> = inProcess,
) {
  describe(`adcp inspect in Chromium against ${name}`, { skip, timeout: 300_000 }, () => {
    let agent: Agent;
    let inspector: Page0;
    let chromium: OpenBrowser;
    let page: Page;
    const tag = name.replace(/\W+/g, '-');

    before(async () => {
      agent = await start();
      inspector = await launch(agent);
      chromium = await launchChromium();
      page = await chromium.context.newPage();
      page.setDefaultTimeout(STEP_MS);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      after(() => assert.deepEqual(errors, [], 'the page logged no errors'));
    });
    after(async () => {
      await chromium?.close();
      await inspector?.close();
      await agent?.close();
    });

    it('discovers the agent', async () => {
      await page.goto(inspector.url);
      await page.waitForSelector('adcp-inspector[data-ready]');
      const discovery = page.locator('#discovery .discovery');
      await discovery.waitFor();
      const text = await discovery.innerText();
      assert.match(text, /MCP server card|A2A agent card/);
      assert.match(text, /create_media_buy/);
      assert.match(text, /AdCP release\s+3\.\d/);
      await shot(page, `${tag}-1-discover`);
    });

    it('fills the get_products form and calls it', async () => {
      await page.getByRole('tab', { name: 'Call' }).click();
      await pickTool(page, 'get_products');
      await page.locator('[data-pointer="/buying_mode"] select').selectOption({ label: 'brief' });
      const brief = page.locator('[data-pointer="/brief"] input');
      if (!(await brief.isVisible())) await page.locator('schema-form > .root > details.optional > summary').click();
      await brief.fill('Pet owners on online video');
      await page.getByText('✓ Valid against the AdCP').waitFor();
      await page.getByRole('button', { name: 'Send' }).click();
      const call = page.locator('#call-result article.call');
      await call.and(page.locator('[data-status="completed"]')).waitFor();
      assert.match(await call.innerText(), /products/);
      await shot(page, `${tag}-2-get-products`);
    });

    it('shows a validation error at the field it names', async () => {
      await fillMediaBuy(page, agent.productId);
      await page.fill('[data-pointer="/end_time"] input', 'next tuesday');
      const issue = page.locator('[data-pointer="/end_time"] .field-issue');
      await issue.waitFor();
      assert.match(await issue.innerText(), /date-time/);
      assert.equal(await page.locator('[data-pointer="/end_time"] input').getAttribute('aria-invalid'), 'true');
      await shot(page, `${tag}-3-validation-error`);
      // Sending anyway is refused before anything leaves: the call says so, with the pointer.
      await page.getByRole('button', { name: 'Send' }).click();
      const refused = page.locator('#call-result article.call[data-status="invalid"]');
      await refused.waitFor();
      assert.match(await refused.innerText(), /\/end_time/);
    });

    it('buys media and follows the submitted task to completion, with its webhook', async () => {
      await page.reload();
      await page.waitForSelector('adcp-inspector[data-ready]');
      await page.getByRole('tab', { name: 'Call' }).click();
      await fillMediaBuy(page, agent.productId);
      await page.getByText('✓ Valid against the AdCP').waitFor();
      await page.getByLabel('Push status changes to the inspector’s webhook receiver').check();
      await shot(page, `${tag}-4-media-buy-form`);
      await page.getByRole('button', { name: 'Send' }).click();
      const call = page.locator('#call-result article.call');
      await call.waitFor();
      const first = await call.getAttribute('data-status');
      assert.ok(['submitted', 'working', 'completed'].includes(first ?? ''), `first answer ${first}`);
      await shot(page, `${tag}-5-submitted`);
      await page.locator('#call-result article.call[data-status="completed"]').waitFor({ timeout: 60_000 });
      const done = page.locator('#call-result article.call');
      assert.match(await done.innerText(), /media_buy_id/);
      await done.locator('.delivery.accepted').first().waitFor({ timeout: 30_000 });
      const webhooks = await done.locator('section.webhooks').innerText();
      assert.match(
        webhooks,
        webhookScheme === 'hmac' ? /verified \(hmac\)/ : /verified \(rfc9421, key framework-webhooks-/,
      );
      assert.doesNotMatch(webhooks, /refused/);
      await done.getByText(/Wire exchange/).click();
      assert.match(await done.locator('details.wire').innerText(), /POST /);
      await shot(page, `${tag}-6-completed`);
      await page.getByRole('tab', { name: 'Tasks' }).click();
      await page.locator('#task-list article.call').first().waitFor();
      await shot(page, `${tag}-7-tasks`);
    });

    it('runs the live checks and keeps the calls in the history', async () => {
      await page.getByRole('tab', { name: 'Check' }).click();
      await page.getByRole('button', { name: 'Run the checks' }).click();
      await page.locator('#checks table.checks').waitFor();
      assert.match(await page.locator('[data-check="capabilities"]').innerText(), /pass/);
      await shot(page, `${tag}-8-checks`);
      await page.getByRole('tab', { name: 'History' }).click();
      const rows = page.locator('#history-list li button');
      await rows.first().waitFor();
      assert.ok((await rows.count()) >= 3, 'three calls kept');
      await rows.first().click();
      await page.locator('#history-detail article.call').waitFor();
      await shot(page, `${tag}-9-history`);
    });
  });
}

// The issue's "Done when", as a new user does it: `adcp serve`, then `adcp inspect <its MCP URL>`
// (both the command itself), buy media from the page and watch the webhook arrive (HMAC).
scenario(
  'adcp serve, with adcp inspect started as a user starts it',
  async () => {
    const serve = await command(['serve', '--port', '0']);
    return { url: String(serve.json['mcp']), productId: 'ctv_premium_sports', close: serve.close };
  },
  'hmac',
  async (agent) => {
    const inspect = await command(['inspect', agent.url, '--port', '0', '--no-history']);
    return { url: String(inspect.json['url']), close: inspect.close };
  },
);

// The framework sends webhooks only with an emitter configured, signs them RFC 9421 (it ignores the
// legacy HMAC registration) and refuses loopback receivers unless told: the peer is started as a
// sandbox seller, and the inspector is given its JWKS.
scenario(
  'the @adcp/sdk framework seller',
  async () => {
    const seller: FrameworkSeller = await startFrameworkSeller({ approvalMs: 500, webhooks: true });
    return {
      url: seller.mcpUrl,
      productId: 'olv_pets',
      webhookJwks: seller.jwksUrl!,
      close: () => seller.close(),
    };
  },
  'rfc9421',
);
