import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { createServerWebhooks } from '../../src/server/tasks/server-webhooks.js';

// Issue 36 item 6: a reference seller bound to loopback lifted every SSRF rule for webhook URLs
// (`allowInsecureUrls` from the listen address), even with `--public-url https://seller.example`
// (a seller behind a same-host proxy): it POSTed to 169.254.169.254, 10.0.0.1 and fd00::1.
// Loopback binding may allow loopback receivers, nothing more, and none behind a public URL.
// No probe sends traffic off loopback: delivery is replaced by a recorder (the registration is
// still checked), and the emitter's own check is asked directly, which refuses before connecting.

type Json = Record<string, unknown>;
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const INTERNAL = [
  'http://169.254.169.254/latest/meta-data/',
  'https://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/hook',
  'https://10.0.0.1/hook',
  'http://[fd00::1]/hook',
  'https://[fd00::1]/hook',
  'http://192.168.1.1/hook',
];
const LOOPBACK = ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://[::1]:9/hook'];

async function sellerWith(options: { publicUrl?: string }) {
  const sent: string[] = [];
  const seller = await startReferenceSeller({
    timings: { workingAfterMs: 10_000, completeAfterMs: 20_000 },
    sendWebhook: async (config) => {
      sent.push(String(config.url));
    },
    ...options,
  });
  const client = new Client({ name: 'buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
  /** Registers `url` with a buy: the error text when refused, undefined when accepted. */
  const register = async (url: string): Promise<string | undefined> => {
    const answer = await client.callTool({
      name: 'create_media_buy',
      arguments: {
        ...mediaBuyRequest([packageRequest('ctv_premium_sports', 100)]),
        idempotency_key: randomUUID(),
        push_notification_config: { url, authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET } },
      },
    });
    const content = answer.structuredContent as Json | undefined;
    if (answer.isError !== true) return undefined;
    return JSON.stringify(content ?? answer.content);
  };
  return { seller, client, sent, register };
}

describe('reference seller on loopback: which webhook URLs it accepts', () => {
  let local: Awaited<ReturnType<typeof sellerWith>>;
  let proxied: Awaited<ReturnType<typeof sellerWith>>;
  let sellers: ReferenceSeller[] = [];
  before(async () => {
    local = await sellerWith({});
    proxied = await sellerWith({ publicUrl: 'https://seller.example' });
    sellers = [local.seller, proxied.seller];
  });
  after(async () => {
    await local.client.close();
    await proxied.client.close();
    for (const seller of sellers) await seller.close();
  });

  it('without a public URL, accepts loopback receivers and refuses private and metadata ones', async () => {
    for (const url of LOOPBACK) assert.equal(await local.register(url), undefined, url);
    for (const url of INTERNAL)
      assert.match((await local.register(url)) ?? 'accepted', /push_notification_config\.url refused/, url);
    assert.ok(
      local.sent.every((url) => LOOPBACK.includes(url)),
      `sent to ${local.sent.join(', ')}`,
    );
  });

  it('behind --public-url https://seller.example, refuses loopback, private and metadata receivers', async () => {
    for (const url of [...LOOPBACK, ...INTERNAL]) {
      assert.match((await proxied.register(url)) ?? 'accepted', /push_notification_config\.url refused/, url);
    }
    assert.deepEqual(proxied.sent, []);
  });
});

describe('reference seller behind a same-host proxy (a loopback public URL, the fleet tests)', () => {
  it('accepts loopback receivers and still refuses private and metadata ones', async () => {
    const fleet = await sellerWith({ publicUrl: 'http://127.0.0.1:1' });
    try {
      for (const url of LOOPBACK) assert.equal(await fleet.register(url), undefined, url);
      for (const url of INTERNAL)
        assert.match((await fleet.register(url)) ?? 'accepted', /push_notification_config\.url refused/, url);
    } finally {
      await fleet.client.close();
      await fleet.seller.close();
    }
  });
});

describe('the seller emitter allowed loopback receivers', () => {
  it('refuses private and metadata URLs itself, before any connection', async () => {
    const webhooks = createServerWebhooks({ allowLoopbackUrls: true, maxAttempts: 1, timeoutMs: 1_000 });
    const envelope = { idempotency_key: randomUUID(), operation_id: 'op', task_id: 't', status: 'completed' };
    for (const url of INTERNAL) {
      const config = { url, authentication: { schemes: ['HMAC-SHA256'], credentials: SECRET } };
      const outcome = await webhooks.attempt(config, envelope, { signal: new AbortController().signal });
      assert.deepEqual(outcome, { ok: false, retry: false, error: outcome.ok ? '' : outcome.error }, url);
      assert.match(outcome.ok ? '' : outcome.error, /^unsafe_url/, url);
    }
  });
});
