// The account-level webhook proof-of-control challenge of the kit's sync_accounts
// (sync-accounts-request.json, `notification_configs`, "Activation proof"; decision 0218): a real
// receiver on 127.0.0.1 (the server allows loopback webhooks, `webhooks.allowLoopbackUrls`, as in
// local tests and demos) verifies the RFC 9421 signature and the body, then echoes, mis-echoes,
// fails, redirects or never answers. The kit is served by createAdcpServer with every answer
// checked against the 3.1 response schemas (strict), called with the official MCP client, over
// records of every kit store (test/kit/kit-harness.ts: memory, SQLite, PostgreSQL when set).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { ListeningAdcpServer } from '../../src/server/index.js';
import { createMediaBuyKit } from '../../src/kit/index.js';
import { getValidator } from '../../src/schemas/index.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify-webhook-signature.js';
import { makeKey } from '../webhooks/helpers.js';
import { KIT_STORES, serveKit, type Json, type ServedKit } from './kit-harness.js';

const key = makeKey('seller-challenge-ed25519');
const CREDENTIALS = 'legacy-bearer-credential-0123456789abcdef';

/** What the receiver does with a challenge, by the URL path it is posted to. */
type Mode = 'echo' | 'token' | 'wrong' | 'extra' | 'status' | 'redirect' | 'hang';

interface Received {
  path: string;
  body: Json;
  headers: IncomingMessage['headers'];
  verified: boolean;
}

/** A webhook receiver on loopback: verifies each challenge's signature, then answers as its path says. */
async function startReceiver(): Promise<{ base: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const url = `${base}${req.url ?? '/'}`;
        const check = await verifyWebhookSignature(
          { method: req.method ?? 'POST', url, headers: req.headers, body: raw },
          { jwks: { keys: [key.publicJwk] } },
        );
        const body = JSON.parse(raw) as Json;
        const mode = (req.url ?? '/').split('/')[1] as Mode;
        received.push({ path: req.url ?? '/', body, headers: req.headers, verified: check.ok });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (!check.ok) return json(401, { error: check.reason });
        if (mode === 'echo') return json(200, { challenge: body.challenge });
        if (mode === 'token') return json(200, { token: body.challenge });
        if (mode === 'wrong') return json(200, { challenge: 'A'.repeat(43) });
        if (mode === 'extra') return json(200, { challenge: body.challenge, ok: true });
        if (mode === 'status') return json(500, { challenge: body.challenge });
        if (mode === 'redirect') return res.writeHead(307, { location: `${base}/echo/moved` }).end();
        // hang: never answers; the seller's timeout ends it, closing the receiver cuts the socket.
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
  return {
    base,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let keys = 0;
const nextKey = () => `challenge-test-key-${String(++keys).padStart(6, '0')}`;
const owner = (domain: string) => ({ brand: { domain }, operator: 'pinnacle-agency.example', billing: 'operator' });

for (const store of KIT_STORES) {
  describe(`account subscriber proof-of-control over ${store.label} records`, { skip: store.skip }, () => {
    let served: ServedKit;
    let server: ListeningAdcpServer;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      receiver = await startReceiver();
      served = await serveKit((records) => createMediaBuyKit({ records, seller: { products: () => [] } }), store, {
        webhooks: { signingKey: key.signing, allowLoopbackUrls: true, timeoutMs: 400 },
      });
      server = served.server;
    });
    after(async () => {
      await served.close();
      await receiver.close();
    });

    const call = async (name: string, args: Json) => {
      const answer = await served.call(name, args);
      assert.equal(answer.isError, false, JSON.stringify(answer.body));
      return answer.body;
    };
    const sync = async (entry: Json, extra: Json = {}) =>
      (
        (await call('sync_accounts', { idempotency_key: nextKey(), accounts: [entry], ...extra })).accounts as Json[]
      )[0] as Json;
    const listed = async (accountId: unknown) =>
      ((await call('list_accounts', { account: { account_id: accountId } })).accounts as Json[])[0] as Json;
    const subscriber = (id: string, mode: Mode, extra: Json = {}) => ({
      subscriber_id: id,
      url: `${receiver.base}/${mode}/${id}`,
      event_types: ['creative.status_changed', 'creative.purged'],
      ...extra,
    });
    const sent = (id: string) => receiver.received.filter((r) => r.path.endsWith(`/${id}`));
    const failure = (entry: Json) => {
      const error = (entry.errors as Json[])[0] as Json;
      return [entry.action, error.code, error.field, (error.details as Json).reason];
    };

    it('activates a subscriber that echoes the signed challenge, and never challenges its tuple again', async () => {
      const entry = await sync({ ...owner('proven.example'), notification_configs: [subscriber('happy', 'echo')] });
      assert.equal(entry.action, 'created');
      assert.deepEqual(entry.notification_configs, [{ ...subscriber('happy', 'echo'), active: true }]);
      assert.equal(entry.kit_proofs, undefined);
      const [challenge] = sent('happy');
      assert.equal(sent('happy').length, 1);
      assert.equal(challenge!.verified, true, 'signed with the server webhook key, bound to the URL');
      assert.deepEqual(getValidator('3.1').schema('core/webhook-challenge.json', challenge!.body).ok, true);
      const { challenge: value, ...rest } = challenge!.body;
      assert.match(String(value), /^[A-Za-z0-9_.:-]{32,255}$/);
      assert.deepEqual(rest, {
        type: 'webhook.challenge',
        account_id: entry.account_id,
        subscriber_id: 'happy',
        seller_agent_url: server.mcpUrl,
        delivery_auth: { mode: 'rfc9421' },
        event_types: ['creative.status_changed', 'creative.purged'],
      });
      assert.deepEqual((await listed(entry.account_id)).notification_configs, entry.notification_configs);

      // The same tuple again, paused, then active again, in another event order: no new challenge.
      const account = { account: { account_id: entry.account_id } };
      const again = await sync({ ...account, notification_configs: [subscriber('happy', 'echo', { active: true })] });
      assert.equal((again.notification_configs as Json[])[0]?.active, true);
      const paused = await sync({
        ...account,
        notification_configs: [subscriber('happy', 'echo', { active: false })],
      });
      assert.equal((paused.notification_configs as Json[])[0]?.active, false);
      const reordered = subscriber('happy', 'echo', { event_types: ['creative.purged', 'creative.status_changed'] });
      const resumed = await sync({ ...account, notification_configs: [reordered] });
      assert.equal((resumed.notification_configs as Json[])[0]?.active, true);
      assert.equal(sent('happy').length, 1, 'an unchanged, proven tuple is not challenged again');
      // Omitting notification_configs keeps them, proofs included.
      await sync({ ...account, payment_terms: 'net_30' });
      await sync({ ...account, notification_configs: [subscriber('happy', 'echo')] });
      assert.equal(sent('happy').length, 1);

      // A changed element of the tuple (the event types) needs fresh proof.
      const narrowed = await sync({
        ...account,
        notification_configs: [subscriber('happy', 'echo', { event_types: ['creative.purged'] })],
      });
      assert.equal((narrowed.notification_configs as Json[])[0]?.active, true);
      assert.equal(sent('happy').length, 2);
    });

    it('accepts the token alias, and binds a legacy credential by its fingerprint only', async () => {
      const legacy = subscriber('legacy', 'token', {
        authentication: { schemes: ['Bearer'], credentials: CREDENTIALS },
      });
      const entry = await sync({ ...owner('legacy.example'), notification_configs: [legacy] });
      assert.deepEqual(entry.notification_configs, [
        { ...subscriber('legacy', 'token'), authentication: { schemes: ['Bearer'] }, active: true },
      ]);
      const [challenge] = sent('legacy');
      assert.deepEqual(challenge!.body.delivery_auth, {
        mode: 'Bearer',
        credential_fingerprint: createHash('sha256').update(CREDENTIALS).digest('hex'),
      });
      assert.equal(challenge!.verified, true, 'RFC 9421 even for a legacy delivery mode');
      assert.deepEqual(getValidator('3.1').schema('core/webhook-challenge.json', challenge!.body).ok, true);
      assert.equal(challenge!.headers.authorization, undefined);
      assert.ok(!JSON.stringify(challenge).includes(CREDENTIALS), 'the credential itself never leaves');
      // Another credential is another tuple.
      const rotated = { ...legacy, authentication: { schemes: ['Bearer'], credentials: `${CREDENTIALS}-2` } };
      await sync({ account: { account_id: entry.account_id }, notification_configs: [rotated] });
      assert.equal(sent('legacy').length, 2);
    });

    for (const [mode, reason] of [
      ['wrong', 'wrong_echo'],
      ['extra', 'wrong_echo'],
      ['status', 'http_status'],
      ['redirect', 'redirect_refused'],
      ['hang', 'no_answer'],
    ] as const) {
      it(`fails the account entry on ${reason} (${mode}), the prior set kept`, async () => {
        const domain = `${mode}.example`;
        const first = await sync({ ...owner(domain), notification_configs: [subscriber(`${mode}-kept`, 'echo')] });
        const started = Date.now();
        const entry = await sync({
          account: { account_id: first.account_id },
          payment_terms: 'net_45',
          notification_configs: [subscriber(`${mode}-ok`, 'echo'), subscriber(`${mode}-bad`, mode)],
        });
        assert.ok(Date.now() - started < 5_000);
        assert.deepEqual(failure(entry), ['failed', 'VALIDATION_ERROR', 'notification_configs[1].url', reason]);
        assert.equal(sent(`${mode}-bad`).length, 1);
        const kept = await listed(first.account_id);
        assert.deepEqual(kept.notification_configs, first.notification_configs, 'the prior set is unchanged');
        assert.equal(kept.payment_terms, undefined, 'nothing of the failed entry is applied');
        // A new account whose only subscriber fails is not created.
        const fresh = await sync({
          ...owner(`new-${domain}`),
          notification_configs: [subscriber(`${mode}-new`, mode)],
        });
        assert.equal(fresh.action, 'failed');
        assert.equal(await listed(fresh.account_id), undefined);
      });
    }

    it('never contacts a refused URL, and stores a paused subscriber without a challenge', async () => {
      const before = receiver.received.length;
      const refused = await sync({
        ...owner('refused.example'),
        notification_configs: [
          { ...subscriber('refused', 'echo'), url: `${receiver.base.replace('//', '//u:p@')}/echo/refused` },
        ],
      });
      assert.deepEqual(
        [refused.action, (refused.errors as Json[])[0]?.field],
        ['failed', 'notification_configs[0].url'],
      );
      const paused = await sync({
        ...owner('paused.example'),
        notification_configs: [subscriber('paused', 'echo', { active: false })],
      });
      assert.equal((paused.notification_configs as Json[])[0]?.active, false);
      const dry = await sync(
        { ...owner('dry.example'), notification_configs: [subscriber('dry', 'echo')] },
        { dry_run: true },
      );
      assert.equal((dry.notification_configs as Json[])[0]?.active, false);
      assert.match(String((dry.warnings as string[])[0]), /dry run/);
      assert.equal(receiver.received.length, before);
    });
  });
}

describe('account subscribers on a server without a webhook signing key', () => {
  it('are stored paused, with a warning, and nothing is sent', async () => {
    const receiver = await startReceiver();
    const served = await serveKit(
      (records) => createMediaBuyKit({ records, seller: { products: () => [] } }),
      undefined,
      { webhooks: { allowLoopbackUrls: true } },
    );
    try {
      const answer = await served.call('sync_accounts', {
        idempotency_key: nextKey(),
        accounts: [
          {
            ...owner('keyless.example'),
            notification_configs: [
              { subscriber_id: 'k', url: `${receiver.base}/echo/k`, event_types: ['creative.purged'] },
            ],
          },
        ],
      });
      const entry = (answer.body.accounts as Json[])[0] as Json;
      assert.equal((entry.notification_configs as Json[])[0]?.active, false);
      assert.match(String((entry.warnings as string[])[0]), /no webhook signing key/);
      assert.equal(receiver.received.length, 0);
    } finally {
      await served.close();
      await receiver.close();
    }
  });
});
