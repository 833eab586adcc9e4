import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign, type KeyObject } from 'node:crypto';
import { remoteRevocationList } from '../../src/signing/remote-revocation-list.js';
import { makeKey } from '../webhooks/helpers.js';

function jws(payload: object, kid: string, key: KeyObject, form: 'flattened' | 'compact' = 'flattened'): string {
  const protectedB64 = Buffer.from(JSON.stringify({ kid, alg: 'EdDSA', typ: 'adcp-revocation+jws' })).toString(
    'base64url',
  );
  const payloadB64 = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = sign(null, Buffer.from(`${protectedB64}.${payloadB64}`), key).toString('base64url');
  return form === 'compact'
    ? `${protectedB64}.${payloadB64}.${signature}`
    : JSON.stringify({ payload: payloadB64, signatures: [{ protected: protectedB64, signature }] });
}

describe('remoteRevocationList', () => {
  const seller = makeKey('list-key');
  const privateKey = seller.signing.privateKey as KeyObject;
  let server: Server;
  let url: string;
  let body = '';
  let hits = 0;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => clock;
  const list = (extra: object = {}) => ({
    version: 1,
    issuer: 'https://seller.example',
    updated: '2026-01-01T00:00:00Z',
    next_update: '2026-01-01T00:05:00Z',
    revoked_kids: ['old-key'],
    ...extra,
  });
  before(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/jose+json' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/revocations.json`;
  });
  after(() => new Promise((r) => server.close(r)));

  it('reads a signed list: revoked kids are revoked, others ok', async () => {
    body = jws(list(), 'list-key', privateKey);
    const source = remoteRevocationList(url, { jwks: [seller.publicJwk], issuer: 'https://seller.example', now });
    assert.equal(await source.check('old-key', clock / 1000), 'revoked');
    assert.equal(await source.check('list-key', clock / 1000), 'ok');
  });

  it('accepts the compact serialization too', async () => {
    body = jws(list(), 'list-key', privateKey, 'compact');
    const source = remoteRevocationList(url, { jwks: [seller.publicJwk], now });
    assert.equal(await source.check('old-key', clock / 1000), 'revoked');
  });

  it('stays stale when the list signature does not verify or the issuer differs', async () => {
    const other = makeKey('list-key');
    body = jws(list(), 'list-key', other.signing.privateKey as KeyObject);
    const forged = remoteRevocationList(url, { jwks: [seller.publicJwk], now });
    assert.equal(await forged.check('any', clock / 1000), 'stale');
    body = jws(list({ issuer: 'https://evil.example' }), 'list-key', privateKey);
    const wrongIssuer = remoteRevocationList(url, { jwks: [seller.publicJwk], issuer: 'https://seller.example', now });
    assert.equal(await wrongIssuer.check('any', clock / 1000), 'stale');
  });

  it('polls again once next_update is due, and goes stale after next_update plus grace without a refresh', async () => {
    body = jws(list(), 'list-key', privateKey);
    const source = remoteRevocationList(url, { jwks: [seller.publicJwk], now });
    await source.check('k', clock / 1000);
    const before = hits;
    await source.check('k', clock / 1000 + 10);
    assert.equal(hits, before, 'no refetch before next_update');
    body = 'not a jws';
    clock += 301_000;
    assert.equal(await source.check('k', clock / 1000), 'ok', 'a failed refresh keeps the last list within grace');
    assert.equal(hits, before + 1);
    clock += 20 * 60_000;
    assert.equal(await source.check('k', clock / 1000), 'stale');
  });
});
