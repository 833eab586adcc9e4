// `adcp webhooks listen --store-url postgres://...`: two listeners (as two hosts behind a load
// balancer would run) share de-duplication through PostgreSQL.
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { signWebhookHmac } from '../../src/webhooks/index.js';
import { signWebhookRequest } from '../../src/webhooks/sign-webhook-request.js';
import { envelope, makeKey } from '../webhooks/helpers.js';
import { recordingIo, type RecordingIo } from '../cli/fake-io.js';
import { dropTestSchemas, pgSkip, testSchemaUrl } from './pg-test-env.js';

const SECRET = randomBytes(32).toString('hex');

async function listeningUrl(io: RecordingIo): Promise<string> {
  for (let i = 0; i < 400; i += 1) {
    const found = /(http:\/\/127\.0\.0\.1:\d+\/webhooks)/.exec(io.out() + io.err());
    if (found?.[1] !== undefined) return found[1];
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the listener never printed its URL: ${io.out()} ${io.err()}`);
}

describe('adcp webhooks listen on PostgreSQL', { skip: pgSkip }, () => {
  const controller = new AbortController();
  const exits: Promise<number>[] = [];
  // A throwaway schema: the database's default one may be at another engineer's migration.
  let storeUrl = '';
  before(async () => {
    storeUrl = await testSchemaUrl('listen');
  });
  after(async () => {
    controller.abort();
    assert.deepEqual(await Promise.all(exits), [0, 0, 0, 0]);
    await dropTestSchemas();
  });

  it('answers a delivery already handled by the other listener as a duplicate, and prints it once', async () => {
    const ios = [recordingIo(), recordingIo()];
    for (const io of ios) {
      io.signal = controller.signal;
      exits.push(
        main(['webhooks', 'listen', '--port', '0', '--secret', SECRET, '--store-url', storeUrl, '--json'], io),
      );
    }
    const urls = await Promise.all(ios.map(listeningUrl));
    const body = JSON.stringify({
      idempotency_key: `whk_${randomUUID()}`,
      operation_id: `op_${randomUUID()}`,
      task_id: 'task_cli',
      task_type: 'create_media_buy',
      status: 'completed',
      timestamp: new Date().toISOString(),
      result: { media_buy_id: 'mb_cli' },
    });
    const answers: unknown[] = [];
    for (const url of urls) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signWebhookHmac({ secret: SECRET, rawBody: body }).headers },
        body,
      });
      assert.equal(response.status, 200);
      answers.push(await response.json());
    }
    assert.deepEqual(answers, [
      { ok: true, result: 'accepted' },
      { ok: true, result: 'duplicate' },
    ]);
    const printed = ios.map(
      (io) =>
        io
          .out()
          .split('\n')
          .filter((line) => line.includes('mb_cli')).length,
    );
    assert.deepEqual(printed, [1, 0]);
  });

  it('refuses on one RFC 9421 listener a signature first accepted by the other (ADCP_STORE_URL, shared replay cache)', async () => {
    const seller = makeKey('seller-cli-fleet');
    const dir = mkdtempSync(path.join(tmpdir(), 'adcp-cli-jwks-'));
    try {
      writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify({ keys: [seller.publicJwk] }));
      const ios = [recordingIo(), recordingIo()];
      for (const io of ios) {
        io.signal = controller.signal;
        io.cwd = dir;
        io.env = { ...io.env, ADCP_STORE_URL: storeUrl };
        exits.push(main(['webhooks', 'listen', '--port', '0', '--jwks', 'jwks.json', '--json'], io));
      }
      const [urlA, urlB] = (await Promise.all(ios.map(listeningUrl))) as [string, string];
      // As behind a load balancer: both listeners see the same target URI (the Host header).
      const body = JSON.stringify(envelope());
      const headers = signWebhookRequest({ url: urlA, body, key: seller.signing });
      const send = (url: string) =>
        new Promise<number>((resolve, reject) => {
          const target = new URL(url);
          const req = request(
            {
              host: target.hostname,
              port: target.port,
              path: target.pathname,
              method: 'POST',
              headers: { ...headers, host: new URL(urlA).host, 'content-type': 'application/json' },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      assert.equal(await send(urlA), 200);
      assert.equal(await send(urlB), 401);
      assert.match(ios[1]!.err(), /replay/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
