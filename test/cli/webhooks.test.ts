import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { main } from '../../src/cli/main.js';
import { signWebhookHmac } from '../../src/webhooks/index.js';
import { recordingIo, type RecordingIo } from './fake-io.js';
import { fastSeller } from './seller.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';

const SECRET = randomBytes(32).toString('hex');

/** Polls (bounded) until the listener printed its URL. */
async function listeningUrl(io: RecordingIo, stream: 'out' | 'err' = 'out'): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const found = /(http:\/\/127\.0\.0\.1:\d+\/webhooks)/.exec(io[stream]());
    if (found?.[1] !== undefined) return found[1];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the listener never printed its URL: ${io.out()} ${io.err()}`);
}

function post(url: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

const payload = (key: string, status: string) =>
  JSON.stringify({
    idempotency_key: key,
    task_id: 'task_1',
    task_type: 'create_media_buy',
    operation_id: 'op_1',
    status,
    timestamp: new Date().toISOString(),
    message: 'Approved\u001b[2J',
    result: { media_buy_id: 'mb_1' },
  });

describe('adcp webhooks listen', () => {
  const controller = new AbortController();
  const io = recordingIo();
  let exit: Promise<number>;
  let url = '';
  before(async () => {
    io.signal = controller.signal;
    exit = main(['webhooks', 'listen', '--port', '0', '--secret', SECRET], io);
    url = await listeningUrl(io);
  });
  after(async () => {
    controller.abort();
    await exit;
  });

  it('prints a verified event on one sanitised line and answers 200', async () => {
    const body = payload('key-0001-abcdefgh', 'completed');
    const response = await post(url, body, signWebhookHmac({ secret: SECRET, rawBody: body }).headers);
    assert.equal(response.status, 200);
    const line =
      io
        .out()
        .split('\n')
        .find((l) => l.includes('task task_1')) ?? '';
    assert.match(line, /completed  create_media_buy  task task_1  op op_1  - Approved\[2J  \[hmac-sha256\]/);
  });

  it('refuses a bad signature with 401 and reports it on stderr', async () => {
    const body = payload('key-0002-abcdefgh', 'completed');
    const response = await post(
      url,
      body,
      signWebhookHmac({ secret: randomBytes(32).toString('hex'), rawBody: body }).headers,
    );
    assert.equal(response.status, 401);
    assert.match(io.err(), /  webhook   refused  401  webhook_hmac_signature_mismatch  \d+ ms\n/);
  });

  it('prints a redelivered event only once', async () => {
    const body = payload('key-0003-abcdefgh', 'working');
    const headers = signWebhookHmac({ secret: SECRET, rawBody: body }).headers;
    assert.equal((await post(url, body, headers)).status, 200);
    assert.equal((await post(url, body, headers)).status, 200);
    assert.equal(
      io
        .out()
        .split('\n')
        .filter((l) => l.includes('working')).length,
      1,
    );
  });

  it('exits 0 when stopped', async () => {
    controller.abort();
    assert.equal(await exit, 0);
  });
});

describe('adcp webhooks usage', () => {
  it('needs exactly one of --secret and --jwks', async () => {
    const io = recordingIo();
    assert.equal(await main(['webhooks', 'listen', '--port', '0'], io), 2);
    assert.match(io.err(), /exactly one of --secret/);
  });

  it('refuses a weak secret before listening', async () => {
    const io = recordingIo();
    assert.equal(await main(['webhooks', 'listen', '--port', '0', '--secret', 'short'], io), 2);
    assert.match(io.err(), /secret/);
  });

  it('refuses an unknown subcommand', async () => {
    const io = recordingIo();
    assert.equal(await main(['webhooks', 'send'], io), 2);
    assert.match(io.err(), /the one subcommand is 'listen'/);
  });
});

describe('adcp webhooks listen --jwks with adcp call --webhook (RFC 9421, end to end)', () => {
  const controller = new AbortController();
  const io = recordingIo();
  let exit: Promise<number>;
  let url = '';
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
    io.signal = controller.signal;
    exit = main(['webhooks', 'listen', '--port', '0', '--jwks', `${seller.url}/.well-known/jwks.json`, '--json'], io);
    url = await listeningUrl(io, 'err');
  });
  after(async () => {
    controller.abort();
    await exit;
    await seller.close();
  });

  it('prints the signed working and completed events of a media buy as JSON lines', async () => {
    const buyer = recordingIo();
    const argv = [
      'call',
      seller.mcpUrl,
      'create_media_buy',
      '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}',
      '--webhook',
      url,
    ];
    assert.equal(await main(argv, buyer), 0, buyer.err());
    const lines = () =>
      io
        .out()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { status: string; scheme: string });
    for (let i = 0; i < 200 && !lines().some((e) => e.status === 'completed'); i++)
      await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(
      lines().map((e) => [e.status, e.scheme]),
      [
        ['working', 'rfc9421'],
        ['completed', 'rfc9421'],
      ],
    );
  });
});

describe('adcp webhooks listen --jwks usage', () => {
  it('exits 2 for a JWKS file that does not exist', async () => {
    const io = recordingIo();
    assert.equal(await main(['webhooks', 'listen', '--port', '0', '--jwks', 'no-such-jwks.json'], io), 2);
    assert.match(io.err(), /cannot read the JWKS file 'no-such-jwks.json' \(ENOENT\)/);
  });

  it('exits 2 for a plain-http JWKS URL off loopback', async () => {
    const io = recordingIo();
    assert.equal(await main(['webhooks', 'listen', '--port', '0', '--jwks', 'http://192.0.2.1/jwks.json'], io), 2);
    assert.match(io.err(), /must be https/);
  });
});
