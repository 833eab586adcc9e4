// test-timeout-ms: 300000
// `adcp call --verbose` and `adcp webhooks listen` as real processes against the reference seller:
// one activity line per request, answer, retry, status change and delivery, on stderr, and none
// of the tokens, keys, secrets or payload values planted in the calls.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { signWebhookHmac } from '../../src/webhooks/index.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { fastSeller } from './seller.js';

const BIN = fileURLToPath(new URL('../../bin/adcp.js', import.meta.url));
const plant = (name: string) => `PLANTED_${name}_${randomBytes(12).toString('hex')}`;
const TOKEN = plant('TOKEN');
const API_KEY = plant('APIKEY');
const WEBHOOK_SECRET = plant('WHSECRET');
const BRIEF_SECRET = plant('BRIEF');
const PO_SECRET = plant('PO');
const FORGED_SECRET = plant('FORGED');
const SECRETS = [TOKEN, API_KEY, WEBHOOK_SECRET, BRIEF_SECRET, PO_SECRET, FORGED_SECRET];

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} leaks ${secret.split('_')[1]}:\n${text}`);
}

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs `adcp ...args` to its end (killed after 120 s). */
function adcp(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, out, err });
    }),
  );
}

/** Waits (bounded: 90 s) until `read()` matches `pattern`. */
async function until(read: () => string, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 900 && !pattern.test(read()); i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(read(), pattern);
  return read();
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('adcp call --verbose and adcp webhooks listen print the activity (processes)', () => {
  let seller: ListeningAdcpServer;
  let listener: ChildProcess;
  let listenerOut = '';
  let listenerErr = '';
  let webhookUrl = '';

  before(async () => {
    seller = await fastSeller();
    listener = spawn(
      process.execPath,
      [BIN, 'webhooks', 'listen', '--port', '0', '--secret', WEBHOOK_SECRET, '--verbose'],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    listener.stdout?.on('data', (chunk: Buffer) => (listenerOut += chunk.toString()));
    listener.stderr?.on('data', (chunk: Buffer) => (listenerErr += chunk.toString()));
    const found = /(http:\/\/127\.0\.0\.1:\d+\/webhooks)/.exec(
      await until(() => listenerOut, /http:\/\/127\.0\.0\.1:\d+\/webhooks/),
    );
    webhookUrl = found?.[1] ?? '';
  });

  after(async () => {
    if (listener.exitCode === null && listener.signalCode === null) {
      const exited = new Promise((resolve) => listener.once('exit', resolve));
      listener.kill('SIGTERM');
      await exited;
    }
    await seller.close();
  });

  it('prints each attempt, the retry and the answers on stderr; stdout stays the result', async () => {
    const args = JSON.stringify({ buying_mode: 'brief', brief: `[rate-limit-once] pets ${BRIEF_SECRET}` });
    const run = await adcp([
      'call',
      seller.mcpUrl,
      'get_products',
      args,
      '--verbose',
      '--auth',
      TOKEN,
      '--header',
      `X-Api-Key: ${API_KEY}`,
    ]);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /^completed  get_products via mcp/);
    const err = lines(run.err);
    const at = (pattern: RegExp) => err.findIndex((l) => pattern.test(l));
    const steps = [
      /^\d\d:\d\d:\d\d\.\d{3}  request   get_products  mcp  attempt 1$/,
      /  response  get_products  failed  RATE_LIMITED  \d+ ms/,
      /  retry     get_products  RATE_LIMITED  attempt 2 of \d+ in 1 s  \(as the agent asked\)$/,
      /  request   get_products  mcp  attempt 2$/,
      /  response  get_products  completed  \d+ ms/,
    ].map(at);
    assert.ok(
      steps.every((n, i) => n >= 0 && (i === 0 || n > (steps[i - 1] ?? 0))),
      `${steps.join(',')}\n${run.err}`,
    );
    assert.ok(!run.out.includes('  request  '), 'the activity stays off stdout');
    assertNoSecret(run.err, 'call --verbose stderr');
  });

  it('--json --verbose: stdout is one document, stderr one JSON object per event; the webhook is listed by the listener', async () => {
    const buy = {
      account: { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' },
      brand: { domain: 'acmeoutdoor.example' },
      start_time: 'asap',
      end_time: '2099-12-31T23:59:59Z',
      po_number: PO_SECRET,
      packages: [{ product_id: 'olv_pets', pricing_option_id: 'olv_pets-cpm', budget: 5 }],
    };
    const run = await adcp([
      'call',
      seller.mcpUrl,
      'create_media_buy',
      JSON.stringify(buy),
      '--wait',
      '--timeout',
      '60',
      '--json',
      '--verbose',
      '--auth',
      TOKEN,
      '--webhook',
      webhookUrl,
      '--webhook-secret',
      WEBHOOK_SECRET,
    ]);
    assert.equal(run.code, 0, run.err);
    const result = JSON.parse(run.out) as { status: string; task_id: string };
    assert.equal(result.status, 'completed');
    const events = lines(run.err).map((l) => JSON.parse(l) as Record<string, unknown>);
    const calls = events.filter((e) => e['poll'] !== true);
    assert.deepEqual(
      calls.slice(0, 2).map((e) => [e['type'], e['tool'], e['status']]),
      [
        ['request', 'create_media_buy', undefined],
        ['response', 'create_media_buy', 'submitted'],
      ],
    );
    assert.ok(calls.length > 2 && calls.slice(2).every((e) => e['type'] === 'status_change'), run.err);
    const changes = events.filter((e) => e['type'] === 'status_change');
    assert.equal(changes.at(-1)?.['status'], 'completed');
    assert.equal(changes.at(-1)?.['task_id'], result.task_id);
    assert.ok(events.some((e) => e['type'] === 'request' && e['poll'] === true && typeof e['at'] === 'string'));
    assert.ok(events.every((e) => typeof e['duration_ms'] !== 'number' || Number.isInteger(e['duration_ms'])));
    assertNoSecret(run.err, 'call --json --verbose stderr');
    assertNoSecret(JSON.stringify(events), 'activity JSON');
    // The seller's signed webhook reaches the listener: one event line, one accepted activity line.
    await until(() => listenerOut, new RegExp(`completed  create_media_buy  task ${result.task_id}`));
    await until(() => listenerErr, /  webhook   accepted  200  \d+ ms/);
  });

  it('the listener reports a duplicate and a refused delivery with its reason, and never the secrets', async () => {
    const body = JSON.stringify({
      idempotency_key: `key-${randomBytes(8).toString('hex')}`,
      task_id: 'task_dup',
      task_type: 'create_media_buy',
      operation_id: 'op_dup',
      status: 'working',
      timestamp: new Date().toISOString(),
      result: { note: PO_SECRET },
    });
    const post = (headers: Record<string, string>) =>
      fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const signed = signWebhookHmac({ secret: WEBHOOK_SECRET, rawBody: body }).headers;
    assert.equal((await post(signed)).status, 200);
    assert.equal((await post(signed)).status, 200);
    const forged = signWebhookHmac({ secret: FORGED_SECRET, rawBody: body }).headers;
    assert.equal((await post({ ...forged, authorization: `Bearer ${TOKEN}` })).status, 401);
    await until(() => listenerErr, /  webhook   duplicate  200  \d+ ms/);
    await until(() => listenerErr, /  webhook   refused  401  webhook_hmac_signature_mismatch  \d+ ms/);
    assert.equal(lines(listenerOut).filter((l) => l.includes('task task_dup')).length, 1, listenerOut);
    assertNoSecret(listenerErr, 'listen stderr');
    assertNoSecret(listenerOut, 'listen stdout');
  });
});
