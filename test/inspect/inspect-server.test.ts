// test-timeout-ms: 300000
/**
 * The inspector's server without a browser: loopback-only Host names, JSON writes from its own
 * origin, credentials kept out of everything the page receives (discovery, calls, the history
 * export), webhook deliveries matched to their call (a refused one with its reason), and the
 * `adcp inspect` command's flags.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/index.js';
import { startInspector, type CallView, type RunningInspector } from '../../src/inspect/index.js';
import { main } from '../../src/cli/main.js';
import { recordingIo } from '../cli/fake-io.js';
import { browserMissing } from './browser.js';
import { loadComplianceDir, type RunReport } from '../../src/storyboard/index.js';

const COMPLIANCE = fileURLToPath(new URL('../../../shared/compliance/3.1.19', import.meta.url));

const TOKEN = 'tok-inspector-secret-0123456789';

/** A raw HTTP request (fetch would not let a test set Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(options.body);
  });
}

async function post(base: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(new URL(path, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

describe('the inspector server', () => {
  let seller: ReferenceSeller;
  let running: RunningInspector;
  let dir: string;
  let agentId: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adcp-inspect-'));
    seller = await startReferenceSeller({
      port: 0,
      timings: { workingAfterMs: 200, completeAfterMs: 600 },
      auth: { tokens: new Map([[TOKEN, 'buyer@test']]) },
    });
    running = await startInspector({
      port: 0,
      historyPath: join(dir, 'inspect.db'),
      pollMs: [200, 400],
      agents: [{ url: seller.mcpUrl, auth: TOKEN }],
    });
    agentId = running.inspector.agents()[0]!.id;
  });
  after(async () => {
    await running?.close();
    await seller?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page with a policy that keeps it on its own origin', async () => {
    const res = await fetch(running.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /connect-src 'self'/);
    assert.match(await res.text(), /<adcp-inspector>/);
    const js = await fetch(new URL('/page/app.js', running.url));
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.equal((await fetch(new URL('/page/..%2Fserver.ts', running.url))).status, 404);
  });

  it('answers its loopback names only (no DNS rebinding)', async () => {
    const res = await raw(new URL('/api/state', running.url).href, { headers: { host: 'evil.example' } });
    assert.equal(res.status, 421);
  });

  it('takes writes as JSON from its own origin only', async () => {
    const url = new URL('/api/agents', running.url).href;
    const form = await raw(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http://x',
    });
    assert.equal(form.status, 403);
    const foreign = await raw(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: '{"url":"http://127.0.0.1:1/mcp"}',
    });
    assert.equal(foreign.status, 403);
    const bad = await post(running.url, '/api/agents', { url: 'ftp://x' });
    assert.equal(bad.status, 400);
  });

  it('keeps the bearer token out of discovery, calls and the export', async () => {
    const discovery = await post(running.url, `/api/agents/${agentId}/discover`, {});
    assert.equal(discovery.status, 200);
    const call = await post(running.url, '/api/calls', {
      agentId,
      tool: 'get_products',
      args: { buying_mode: 'brief', brief: 'coffee lovers' },
    });
    assert.equal(call.status, 200);
    const view = call.json as CallView;
    assert.equal(view.result?.['status'], 'completed', JSON.stringify(view.failure ?? view.result));
    const sent = view.exchanges.find((x) => x.requestBody?.includes('get_products'));
    assert.equal(sent?.requestHeaders['authorization'], 'Bearer ••••••');
    const exported = await (await fetch(new URL('/api/export', running.url))).text();
    for (const text of [JSON.stringify(discovery.json), JSON.stringify(view), exported]) {
      assert.ok(!text.includes(TOKEN), 'the token never reaches the page');
      assert.ok(!text.includes(running.inspector.webhookSecret), 'nor the webhook secret');
    }
    assert.match(exported, /"format": "adcp-inspect-history"/);
    assert.match(exported, /get_products/);
  });

  it('refuses arguments that fail the request schema before sending, with the pointer', async () => {
    const { SAMPLE_ACCOUNT, SAMPLE_BRAND } = await import('../../src/seller/sample-requests.js');
    const call = await post(running.url, '/api/calls', {
      agentId,
      tool: 'create_media_buy',
      args: { account: SAMPLE_ACCOUNT, brand: SAMPLE_BRAND, start_time: 'asap', end_time: 'soon' },
    });
    const view: CallView = call.json;
    assert.equal(view.invalid?.ok, false);
    // Validation stops at the first problem (decision 0121): here the only one.
    assert.deepEqual(
      (view.invalid?.issues ?? []).map((i) => i.pointer),
      ['/end_time'],
    );
    assert.equal(view.exchanges.length, 0, 'nothing was sent');
  });

  it('follows a submitted buy to completion and shows its verified webhooks and a forged one refused', async () => {
    const { SAMPLE_ACCOUNT, SAMPLE_BRAND } = await import('../../src/seller/sample-requests.js');
    const call = await post(running.url, '/api/calls', {
      agentId,
      tool: 'create_media_buy',
      webhook: true,
      args: {
        account: SAMPLE_ACCOUNT,
        brand: SAMPLE_BRAND,
        start_time: 'asap',
        end_time: '2099-12-31T23:59:59Z',
        packages: [{ product_id: 'ctv_premium_sports', pricing_option_id: 'ctv_premium_sports-cpm', budget: 5000 }],
      },
    });
    const first = call.json as CallView;
    assert.equal(first.result?.['status'], 'submitted', JSON.stringify(first.result ?? first.failure));
    assert.ok(first.webhookUrl?.endsWith(first.id));
    const forged = await raw(first.webhookUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        operation_id: first.id,
        task_id: 't',
        task_type: 'create_media_buy',
        status: 'completed',
      }),
    });
    assert.equal(forged.status, 401);
    let view = first;
    for (let i = 0; i < 300 && (view.following || !view.webhooks.some((w) => w.status === 'completed')); i++) {
      await new Promise((done) => setTimeout(done, 100));
      view = (await (await fetch(new URL(`/api/calls/${first.id}`, running.url))).json()) as CallView;
    }
    assert.equal(
      view.final?.['status'],
      'completed',
      JSON.stringify({
        events: view.events,
        webhooks: view.webhooks.map((w) => [w.outcome, w.status, w.reason]),
        final: view.final?.['message'],
      }),
    );
    const refused = view.webhooks.find((w) => w.outcome === 'refused');
    assert.ok(refused?.reason, 'the forged delivery is shown, refused, with its reason');
    assert.ok(view.webhooks.some((w) => w.outcome === 'accepted' && w.status === 'completed' && w.scheme === 'hmac'));
    const kept = running.inspector.history.get(first.id);
    assert.equal(kept?.status, 'completed');
  });
});

describe('the inspector runs storyboards', () => {
  let seller: ReferenceSeller;
  let running: RunningInspector;
  let bare: RunningInspector;

  before(async () => {
    seller = await startReferenceSeller({ port: 0 });
    running = await startInspector({
      port: 0,
      agents: [{ url: seller.mcpUrl }],
      compliance: async () => loadComplianceDir(COMPLIANCE),
    });
    bare = await startInspector({ port: 0, agents: [{ url: seller.mcpUrl }] });
  });
  after(async () => {
    await running?.close();
    await bare?.close();
    await seller?.close();
  });

  it('says how to name a compliance suite when none was given', async () => {
    assert.equal(((await (await fetch(new URL('/api/state', bare.url))).json()) as any).storyboards, false);
    const id = bare.inspector.agents()[0]!.id;
    const res = await post(bare.url, `/api/agents/${id}/storyboards`, {});
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /--compliance-dir/);
  });

  it('refuses ids that are not storyboard ids, and names an unknown one', async () => {
    const id = running.inspector.agents()[0]!.id;
    assert.equal(
      (await post(running.url, `/api/agents/${id}/storyboards`, { ids: 'capability_discovery' })).status,
      400,
    );
    assert.equal((await post(running.url, `/api/agents/${id}/storyboards`, { ids: ['<script>'] })).status, 400);
    const unknown = await post(running.url, `/api/agents/${id}/storyboards`, { ids: ['no_such_storyboard'] });
    assert.equal(unknown.status, 404);
    assert.match(unknown.json.error.message, /no_such_storyboard/);
  });

  it('refuses run options of the wrong kind, and says which', async () => {
    const id = running.inspector.agents()[0]!.id;
    const bad: [unknown, RegExp][] = [
      [{ allowHttp: 'yes' }, /allowHttp must be true or false/],
      [{ webhooks: 0 }, /webhooks must be true or false/],
      [{ rateLimitTrip: 1 }, /rateLimitTrip must be true or false/],
      [{ brandJsonUrl: 'ftp://brand.example/brand.json' }, /brandJsonUrl must be an http\(s\) URL/],
      [{ brandJsonUrl: 'not a url' }, /brandJsonUrl must be an http\(s\) URL/],
      [{ budgetSeconds: 0 }, /budgetSeconds must be a whole number of seconds from 1 to 3600/],
      [{ budgetSeconds: 1.5 }, /budgetSeconds/],
      [{ budgetSeconds: '60' }, /budgetSeconds/],
      [{ budget: 60 }, /unknown storyboard run option 'budget'/],
      [{ signingVectors: 42 }, /signingVectors must be the path of a request-signing vectors folder/],
      [{ signingVectors: tmpdir() }, /signingVectors: no keys\.json in /],
    ];
    for (const [body, message] of bad) {
      const res = await post(running.url, `/api/agents/${id}/storyboards`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json.error.message, message);
    }
  });

  it('runs without the webhook receiver when told: the webhook storyboard is not applicable', async () => {
    const id = running.inspector.agents()[0]!.id;
    const res = await post(running.url, `/api/agents/${id}/storyboards`, {
      ids: ['webhook_emission'],
      webhooks: false,
      budgetSeconds: 60,
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const report = res.json as RunReport;
    const emission = report.storyboards.find((s) => s.id === 'webhook_emission');
    assert.equal(emission?.verdict, 'not_applicable');
    assert.match(emission?.detail ?? '', /webhook_receiver/);
  });

  it('runs the storyboards asked for, with progress events and every verdict explained', async () => {
    const id = running.inspector.agents()[0]!.id;
    const lines: string[] = [];
    const stop = running.inspector.subscribe((event) => {
      if (event.type === 'storyboard') lines.push(event.line);
    });
    const res = await post(running.url, `/api/agents/${id}/storyboards`, {
      ids: ['capability_discovery', 'security_baseline'],
    });
    stop();
    assert.equal(res.status, 200, JSON.stringify(res.json));
    const report = res.json as RunReport;
    assert.deepEqual(
      report.storyboards.map((s) => `${s.id} ${s.verdict}`).sort((a, b) => a.localeCompare(b)),
      ['capability_discovery passed', 'security_baseline failed'],
    );
    // Asked for from the page, not on a command line.
    assert.ok(report.storyboards.every((s) => s.selected_because === 'asked for by id'));
    const failed = report.storyboards
      .find((s) => s.id === 'security_baseline')!
      .steps.find((s) => s.verdict === 'failed')!;
    assert.ok(failed.request !== undefined && failed.response !== undefined && failed.source.storyboard !== '');
    assert.ok(failed.validations.some((v) => v.verdict === 'failed' && v.expected !== undefined));
    assert.ok(
      lines.some((l) => /2 storyboards selected/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /security_baseline: failed/.test(l)),
      lines.join('\n'),
    );
  });
});

describe('adcp inspect (the command)', () => {
  it('documents itself and refuses contradictory flags', async () => {
    const help = recordingIo();
    assert.equal(await main(['inspect', '--help'], help), 0);
    assert.match(help.out(), /Usage: adcp inspect \[url\]/);
    assert.match(help.out(), /--compliance-dir DIR/);
    assert.match(help.out(), /--webhook-jwks URL/);
    const both = recordingIo();
    assert.equal(await main(['inspect', '--history', 'x.db', '--no-history'], both), 2);
    const bad = recordingIo();
    assert.equal(await main(['inspect', 'not a url'], bad), 2);
    const sources = recordingIo();
    assert.equal(await main(['inspect', '--compliance-dir', COMPLIANCE, '--release', '3.1.19'], sources), 2);
    assert.match(sources.err(), /not both/);
    const jwks = recordingIo();
    assert.equal(await main(['inspect', '--webhook-jwks', 'https://seller.example/jwks.json'], jwks), 2);
    const plain = recordingIo();
    assert.equal(
      await main(
        ['inspect', 'http://127.0.0.1:1/mcp', '--port', '0', '--webhook-jwks', 'http://seller.example/jwks.json'],
        plain,
      ),
      2,
    );
    assert.match(plain.err(), /webhookJwks must be https/);
  });

  it('starts on a free port, says where, and stops when told', async () => {
    const stop = new AbortController();
    const io = { ...recordingIo(), signal: stop.signal };
    const done = main(['inspect', '--port', '0', '--no-history', '--json'], io);
    let url: string | undefined;
    for (let i = 0; i < 100 && url === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = /"url":"([^"]+)"/.exec(io.out())?.[1];
    }
    assert.ok(url, io.err());
    assert.equal((await fetch(url)).status, 200);
    stop.abort();
    assert.equal(await done, 0);
  });
});

describe('the browser requirement', () => {
  it('skips without Chromium on a workstation, fails in CI', () => {
    assert.match(browserMissing({}, '/nonexistent/chromium') ?? '', /no Chromium/);
    assert.throws(() => browserMissing({ CI: 'true' }, '/nonexistent/chromium'), /must run in CI/);
    assert.throws(() => browserMissing({ ADCP_REQUIRE_BROWSER: '1' }, '/nonexistent/chromium'), /must run in CI/);
  });
});
