// Issue 36, item 2: a request signed for seller A, replayed within its validity to seller B with
// `Host: A`, created a second buy: the verifier built `@authority` and `@target-uri` from the Host
// header, the loopback Host check ignored the port, and `publicUrl` did not bind the signed
// authority. A seller verifies against the authority it is configured to be (`publicUrl`, else
// the listen address with its port), never against a header the sender controls.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createAdcpServer } from '../../src/server/create-adcp-server.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import type { CreateAdcpServerOptions } from '../../src/server/types.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { verifyRequestSignature } from '../../src/signing/verify-request-signature.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { ACTIVATED_HEADERS, sendMessageBody } from '../server/profile-activation.js';
import { rawPost } from './raw-http.js';
import type { RawAnswer } from './raw-http.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const keyid = 'buyer-2026';
const publicJwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: keyid,
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const signing = { keyid, privateKey, alg: 'ed25519' as const };

/** A seller that requires signatures on create_media_buy and counts the buys it makes. */
function seller(extra: Partial<CreateAdcpServerOptions> = {}) {
  const buys: string[] = [];
  const server = createAdcpServer({
    requestSigning: { jwks: { keys: [publicJwk] }, requiredFor: ['create_media_buy'], coverContentDigest: 'required' },
    tools: [
      {
        name: 'create_media_buy',
        description: 'records the buy',
        handler: (args) => {
          buys.push(String(args['idempotency_key']));
          return { media_buy_id: `mb_${buys.length}`, status: 'pending_activation', packages: [] };
        },
      },
    ],
    ...extra,
  });
  return { server, buys };
}

/** A create_media_buy over A2A 1.0, signed for `signedUrl`, sent to `sendTo` with `host`. */
function replay(signedUrl: string, sendTo: string, host: string): Promise<RawAnswer> {
  const body = sendMessageBody(
    'create_media_buy',
    mediaBuyRequest([packageRequest('display_news', 10)], { idempotency_key: randomUUID() }),
  );
  const headers = signRequest(
    { method: 'POST', url: signedUrl, headers: { 'content-type': 'application/json' }, body },
    signing,
  );
  return rawPost(sendTo, { body, headers: { ...ACTIVATED_HEADERS, ...headers, host } });
}

const hostOf = (url: string) => new URL(url).host;

describe('signed requests replayed to another seller', () => {
  const a = seller();
  const b = seller();
  // A seller whose Host check knows names but not ports (as `allowedHosts` or no check off loopback).
  const open = seller({ allowedHosts: ['127.0.0.1', 'localhost'] });
  let la: ListeningAdcpServer;
  let lb: ListeningAdcpServer;
  let lo: ListeningAdcpServer;
  before(async () => {
    la = await a.server.listen();
    lb = await b.server.listen();
    lo = await open.server.listen();
  });
  after(async () => {
    await a.server.close();
    await b.server.close();
    await open.server.close();
  });

  it('seller A makes the buy signed for it', async () => {
    const answer = await replay(la.a2aUrl, la.a2aUrl, hostOf(la.a2aUrl));
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(a.buys.length, 1, answer.text.slice(0, 300));
  });

  it("a loopback seller B refuses A's signed buy sent with Host: A (another port)", async () => {
    const answer = await replay(la.a2aUrl, lb.a2aUrl, hostOf(la.a2aUrl));
    assert.ok(answer.status === 403 || answer.status === 401, `${answer.status} ${answer.text.slice(0, 300)}`);
    assert.deepEqual(b.buys, []);
  });

  it("a seller whose Host check ignores ports refuses A's signed buy: request_target_uri_malformed", async () => {
    const answer = await replay(la.a2aUrl, lo.a2aUrl, hostOf(la.a2aUrl));
    assert.equal(answer.status, 401, answer.text.slice(0, 300));
    assert.equal(answer.headers['www-authenticate'], 'Signature error="request_target_uri_malformed"');
    assert.deepEqual(open.buys, []);
    // Its own address still works, under either loopback name.
    const own = await replay(lo.a2aUrl, lo.a2aUrl, hostOf(lo.a2aUrl));
    assert.equal(own.status, 200, own.text.slice(0, 300));
    const alias = lo.a2aUrl.replace('127.0.0.1', 'localhost');
    const named = await replay(alias, lo.a2aUrl, hostOf(alias));
    assert.equal(named.status, 200, named.text.slice(0, 300));
    assert.equal(open.buys.length, 2);
  });
});

describe('a seller with publicUrl verifies against it (docs/fleet.md)', () => {
  const c = seller({ publicUrl: 'https://c.example' });
  let lc: ListeningAdcpServer;
  before(async () => {
    lc = await c.server.listen();
  });
  after(() => c.server.close());

  it('accepts a buy signed for https://c.example, behind a same-host proxy that keeps Host', async () => {
    const answer = await replay('https://c.example/a2a', lc.a2aUrl, 'c.example');
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(c.buys.length, 1, answer.text.slice(0, 300));
  });

  it('refuses a buy signed for another seller, whatever Host says', async () => {
    for (const host of ['a.example', 'c.example']) {
      const answer = await replay('https://a.example/a2a', lc.a2aUrl, host);
      assert.ok(answer.status === 403 || answer.status === 401, `${host}: ${answer.status} ${answer.text}`);
    }
    assert.equal(c.buys.length, 1);
  });

  it("refuses a buy signed for the instance's own address (signers sign the public URL)", async () => {
    const answer = await replay(lc.a2aUrl, lc.a2aUrl, hostOf(lc.a2aUrl));
    assert.equal(answer.status, 401, answer.text.slice(0, 300));
    assert.equal(answer.headers['www-authenticate'], 'Signature error="request_target_uri_malformed"');
    assert.equal(c.buys.length, 1);
  });
});

describe('a loopback seller whose publicUrl is a same-host proxy on another port (the fleet)', () => {
  const proxy = 'http://127.0.0.1:1';
  const d = seller({ publicUrl: proxy });
  let ld: ListeningAdcpServer;
  before(async () => {
    ld = await d.server.listen();
  });
  after(() => d.server.close());

  it("accepts a buy signed for the proxy's URL, with the proxy's Host passed through", async () => {
    const answer = await replay(`${proxy}/a2a`, ld.a2aUrl, '127.0.0.1:1');
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    assert.equal(d.buys.length, 1);
  });

  it('still refuses a loopback Host of any other port', async () => {
    const answer = await replay(`${proxy}/a2a`, ld.a2aUrl, '127.0.0.1:2');
    assert.equal(answer.status, 403, answer.text.slice(0, 300));
    assert.equal(d.buys.length, 1);
  });
});

describe('verifyRequestSignature({ authority }) for a seller with its own HTTP stack', () => {
  const request = (url: string) => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":{}}}';
    const headers = signRequest(
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
      signing,
    );
    return { method: 'POST', url, headers: { ...headers, host: new URL(url).host }, body };
  };
  const options = (authority: string) => ({ jwks: { keys: [publicJwk] }, authority, now: () => Date.now() });

  it('refuses a request whose URL and Host name another authority', async () => {
    const result = await verifyRequestSignature(request('https://a.example/mcp'), options('b.example'));
    assert.deepEqual(result.ok ? result : { ok: false, code: result.code }, {
      ok: false,
      code: 'request_target_uri_malformed',
    });
  });

  it('accepts its own authority, canonicalized (case, default port)', async () => {
    const result = await verifyRequestSignature(request('https://B.example:443/mcp'), options('b.example'));
    assert.equal(result.ok && result.signed, true, JSON.stringify(result));
  });
});
