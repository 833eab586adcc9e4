import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDictionary, serializeInnerList, type InnerList } from '../../src/signing/structured-fields.js';
import { canonicalJson, payloadFingerprint } from '../../src/webhooks/canonical-json.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';
import { RevocationList } from '../../src/signing/revocation.js';
import { remoteJwks } from '../../src/signing/remote-jwks.js';
import { checkOutboundUrl } from '../../src/core/outbound-url.js';
import { decodeBase64Strict, decodeBase64UrlStrict } from '../../src/signing/base64.js';

describe('parseDictionary', () => {
  it('parses inner lists with parameters and keeps member order', () => {
    const dict = parseDictionary('sig1=("@method" "content-digest");created=1;keyid="k", relay=("@method");alg="x"');
    assert.deepEqual([...(dict?.keys() ?? [])], ['sig1', 'relay']);
    const sig1 = dict?.get('sig1') as InnerList;
    assert.equal(serializeInnerList(sig1), '("@method" "content-digest");created=1;keyid="k"');
  });
  it('reads byte sequences as raw text so the caller picks the alphabet', () => {
    const dict = parseDictionary('sig1=:ab-_cd:');
    assert.deepEqual(dict?.get('sig1'), { kind: 'item', value: { type: 'binary', value: 'ab-_cd' }, params: [] });
  });
  it('refuses malformed input without throwing', () => {
    for (const text of [
      'sig1=',
      'Sig1=(1)',
      'sig1=("a"',
      'sig1=("a\\x")',
      'sig1=:abc',
      'a=1,',
      'a=1;b=2;b=3',
      'a=("x")y',
    ]) {
      assert.equal(parseDictionary(text), undefined, text);
    }
  });
  it('escapes quotes and backslashes when serialising strings', () => {
    const list = parseDictionary('s=("a");n="q\\"b\\\\"')?.get('s') as InnerList;
    assert.equal(serializeInnerList(list), '("a");n="q\\"b\\\\"');
  });
});

describe('strict Base64 decoders', () => {
  it('accept only their own alphabet and padding', () => {
    assert.deepEqual(decodeBase64UrlStrict('-_8'), Buffer.from([0xfb, 0xff]));
    assert.equal(decodeBase64UrlStrict('+/8'), undefined);
    assert.equal(decodeBase64UrlStrict('AA=='), undefined);
    assert.deepEqual(decodeBase64Strict('+/8='), Buffer.from([0xfb, 0xff]));
    assert.equal(decodeBase64Strict('-_8='), undefined);
    assert.equal(decodeBase64Strict('AAA'), undefined);
  });
});

describe('canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units at every depth and serialises numbers as ECMAScript does', () => {
    assert.equal(
      canonicalJson({ b: [{ z: 1, a: 1e21 }], a: 'x', '\u00e9': null, A: 1.5 }),
      '{"A":1.5,"a":"x","b":[{"a":1e+21,"z":1}],"é":null}',
    );
  });
  it('gives the same fingerprint for whitespace and member-order variants, another for a changed value', () => {
    const a = payloadFingerprint(JSON.parse('{"a":1,"b":{"c":[1,2]}}'));
    assert.equal(payloadFingerprint(JSON.parse('{ "b" : { "c" : [1, 2] }, "a" : 1 }')), a);
    assert.notEqual(payloadFingerprint(JSON.parse('{"a":2,"b":{"c":[1,2]}}')), a);
  });
});

describe('MemoryReplayStore', () => {
  it('answers replayed for a live (keyid, nonce) and forgets it after expiry', () => {
    const store = new MemoryReplayStore();
    assert.equal(store.record('k', 'n', 1360, 1000), 'recorded');
    assert.equal(store.record('k', 'n', 1360, 1359), 'replayed');
    assert.equal(store.record('k', 'n', 2000, 1360), 'recorded');
  });
  it('keeps keyids apart', () => {
    const store = new MemoryReplayStore();
    store.record('a', 'n', 2000, 1000);
    assert.equal(store.record('b', 'n', 2000, 1000), 'recorded');
  });
  it('rejects with rate_abuse at the per-keyid cap instead of evicting live entries', () => {
    const store = new MemoryReplayStore({ perKeyidCap: 2 });
    store.record('k', 'n1', 2000, 1000);
    store.record('k', 'n2', 2000, 1000);
    assert.equal(store.isAtCapacity('k', 1000), true);
    assert.equal(store.record('k', 'n3', 2000, 1000), 'rate_abuse');
    assert.equal(store.isAtCapacity('other', 1000), false);
    assert.equal(store.isAtCapacity('k', 2000), false, 'expired entries free the cap');
  });
  it('enforces the aggregate cap across keyids', () => {
    const store = new MemoryReplayStore({ aggregateCap: 2 });
    store.record('a', 'n', 2000, 1000);
    store.record('b', 'n', 2000, 1000);
    assert.equal(store.record('c', 'n', 2000, 1000), 'rate_abuse');
    assert.equal(store.size, 2);
  });
});

describe('RevocationList', () => {
  it('revokes listed kids and goes stale after next_update plus grace', () => {
    const fetchedAt = Date.parse('2026-01-01T00:00:00Z') / 1000;
    const list = new RevocationList({ revoked_kids: ['bad'], next_update: '2026-01-01T00:15:00Z' }, {}, fetchedAt);
    assert.equal(list.check('bad', fetchedAt), 'revoked');
    assert.equal(list.check('good', fetchedAt + 900), 'ok');
    assert.equal(list.check('good', fetchedAt + 900 + 3600), 'ok', 'grace is 4x the 15 min interval');
    assert.equal(list.check('good', fetchedAt + 900 + 3601), 'stale');
  });
});

describe('remoteJwks', () => {
  let server: Server;
  let hits = 0;
  let body = '';
  let status = 200;
  const base = async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(status, status === 302 ? { location: '/elsewhere' } : { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  };
  after(() => new Promise((r) => server.close(r)));

  it('fetches once, caches, refetches a miss at most once per cooldown, and refuses redirects and oversized sets', async () => {
    const url = await base();
    let clock = 0;
    body = JSON.stringify({ keys: [{ kid: 'a', kty: 'OKP' }] });
    const jwks = remoteJwks(url, { now: () => clock, refetchCooldownMs: 30_000, cacheMs: 60_000, maxBytes: 200 });
    assert.equal((await jwks.get('a'))?.kid, 'a');
    await jwks.get('a');
    assert.equal(hits, 1);
    body = JSON.stringify({ keys: [{ kid: 'a' }, { kid: 'b' }] });
    await jwks.refresh?.();
    assert.equal(hits, 1, 'within the cooldown after the first fetch');
    clock = 31_000;
    await jwks.refresh?.();
    assert.equal((await jwks.get('b'))?.kid, 'b');
    assert.equal(hits, 2);
    body = JSON.stringify({ keys: [{ kid: 'c', pad: 'x'.repeat(500) }] });
    clock = 200_000;
    assert.equal(await jwks.get('c'), undefined, 'oversized set refused; the last good set stays');
    assert.equal((await jwks.get('b'))?.kid, 'b');
    status = 302;
    clock = 400_000;
    assert.equal(await jwks.get('z'), undefined);
  });

  it('refuses a non-https URL that is not loopback', () => {
    assert.throws(() => remoteJwks('http://seller.example/jwks.json'), TypeError);
  });
});

describe('checkOutboundUrl', () => {
  it('accepts a public https URL', () => {
    assert.equal(checkOutboundUrl('https://buyer.example/hook?x=1').ok, true);
  });
  it('refuses http, userinfo, loopback, link-local, private and mapped addresses', () => {
    for (const url of [
      'http://buyer.example/',
      'https://u:p@buyer.example/',
      'https://localhost/',
      'https://10.1.2.3/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://169.254.169.254/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00:ec2::254]/',
      'https://[fe80::1]/',
      'https://0.0.0.0/',
      'not a url',
    ]) {
      assert.equal(checkOutboundUrl(url).ok, false, url);
    }
  });
  it('allows http and loopback only when explicitly asked', () => {
    assert.equal(checkOutboundUrl('http://127.0.0.1:8080/hook', { reach: 'any' }).ok, true);
  });
  it("with reach 'loopback', allows loopback receivers and nothing else that 'public' refuses", () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:9/x', 'http://[::1]:9/', 'https://127.0.0.2/'])
      assert.equal(checkOutboundUrl(url, { reach: 'loopback' }).ok, true, url);
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254/',
      'https://10.0.0.1/',
      'http://[fd00::1]/',
      'https://[fd00::1]/',
      'http://buyer.example/',
      'https://u:p@127.0.0.1/',
      'ftp://127.0.0.1/',
    ])
      assert.equal(checkOutboundUrl(url, { reach: 'loopback' }).ok, false, url);
    assert.equal(checkOutboundUrl('https://buyer.example/hook', { reach: 'loopback' }).ok, true);
  });
});
