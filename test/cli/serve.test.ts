import { describe, it } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { AdcpClient } from '../../src/client/index.js';
import { recordingIo } from './fake-io.js';
import { dropTestSchemas, pgSkip, testSchemaUrl } from '../pg/pg-test-env.js';

describe('adcp serve', () => {
  it('serves the reference seller until stopped, then exits 0', async () => {
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    const exit = main(['serve', '--port', '0', '--json'], io);
    let endpoints: { mcp?: string } = {};
    for (let i = 0; i < 200 && endpoints.mcp === undefined; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (io.out().includes('\n')) endpoints = JSON.parse(io.out()) as { mcp?: string };
    }
    try {
      assert.match(endpoints.mcp ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const client = new AdcpClient({ url: endpoints.mcp ?? '', protocol: 'mcp' });
      const result = await client.call('get_products', { buying_mode: 'brief', brief: 'pets' });
      await client.close();
      assert.equal(result.status, 'completed');
    } finally {
      controller.abort();
    }
    assert.equal(await exit, 0);
  });

  it('prints its endpoints, signing keys and state for people, keeping state in --db', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'adcp-serve-'));
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    const exit = main(['serve', '--port', '0', '--db', join(dir, 'seller.db')], io);
    try {
      for (let i = 0; i < 200 && !io.out().includes('state'); i++) await new Promise((r) => setTimeout(r, 25));
      assert.match(io.out(), /^  MCP  http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
      assert.match(io.out(), /^  A2A  http:\/\/127\.0\.0\.1:\d+\/a2a$/m);
      const jwks = /webhook signing keys +(\S+)/.exec(io.out())?.[1] ?? '';
      const keys = (await (await fetch(jwks)).json()) as { keys: unknown[] };
      assert.equal(keys.keys.length, 1);
      assert.match(io.out(), /state  tasks: SQLite .*seller\.db; media buys: SQLite .*seller\.db/);
    } finally {
      controller.abort();
      assert.equal(await exit, 0);
      await rm(dir, { recursive: true, force: true });
    }
    assert.match(io.out(), /stopped: closing the seller/);
    assert.match(io.out(), /stopped; nothing was left running\./);
  });

  it('prints each tool call and answer on stderr with --verbose, never a body or a token', async () => {
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    const exit = main(['serve', '--port', '0', '--json', '--verbose', '--auth-token', 'verbose-token-0123456789'], io);
    let endpoints: { a2a?: string } = {};
    for (let i = 0; i < 200 && endpoints.a2a === undefined; i++) {
      await new Promise((r) => setTimeout(r, 25));
      if (io.out().includes('\n')) endpoints = JSON.parse(io.out()) as { a2a?: string };
    }
    try {
      const client = new AdcpClient({ url: endpoints.a2a ?? '', protocol: 'a2a', auth: 'verbose-token-0123456789' });
      const refused = await client.call('create_media_buy', {
        packages: [],
        brand: { domain: 'secret-brand.example' },
      });
      await client.close();
      assert.equal(refused.status, 'failed');
    } finally {
      controller.abort();
    }
    assert.equal(await exit, 0);
    // --json: one JSON object per line on stderr; stdout stays the endpoints.
    const events = io
      .err()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const answer = events.find((e) => e.type === 'response' && e.tool === 'create_media_buy');
    assert.equal(answer?.status, 'failed');
    assert.equal(answer?.error_code, 'INVALID_REQUEST');
    assert.equal(answer?.protocol, 'a2a');
    assert.ok(events.some((e) => e.type === 'request' && e.tool === 'create_media_buy'));
    assert.doesNotMatch(io.err(), /secret-brand|verbose-token/);
  });

  it('refuses a port out of range', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '99999'], io), 2);
  });
});

describe('adcp serve --store-url', () => {
  it('exits 1 without echoing the password when PostgreSQL is unreachable', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '0', '--store-url', 'postgres://user:s3cret@127.0.0.1:1/adcp'], io), 1);
    assert.match(io.err(), /^adcp serve: .*\[store\]/);
    assert.doesNotMatch(io.err() + io.out(), /s3cret/);
  });

  it('keeps its state in PostgreSQL and still completes a media buy', { skip: pgSkip }, async (t) => {
    const controller = new AbortController();
    const io = recordingIo();
    io.signal = controller.signal;
    // A throwaway schema: the database's default one may be at another engineer's migration.
    const storeUrl = await testSchemaUrl('serve');
    t.after(dropTestSchemas);
    const exit = main(['serve', '--port', '0', '--store-url', storeUrl], io);
    try {
      for (let i = 0; i < 400 && !io.out().includes('state'); i++) await new Promise((r) => setTimeout(r, 25));
      assert.match(io.out(), /state  PostgreSQL 127\.0\.0\.1:\d+\/\w+ \(tasks, media buys/);
      const mcp = /MCP  (\S+)/.exec(io.out())?.[1] ?? '';
      const buyer = recordingIo();
      const argv = [
        'call',
        mcp,
        'create_media_buy',
        '{"account":{"brand":{"domain":"acmeoutdoor.example"},"operator":"pinnacle-agency.example"},"brand":{"domain":"acmeoutdoor.example"},"start_time":"asap","end_time":"2099-12-31T23:59:59Z","packages":[{"product_id":"olv_pets","pricing_option_id":"olv_pets-cpm","budget":5}]}',
        '--wait',
        '--json',
      ];
      assert.equal(await main(argv, buyer), 0, buyer.err());
      assert.equal((JSON.parse(buyer.out()) as { status: string }).status, 'completed');
    } finally {
      controller.abort();
    }
    assert.equal(await exit, 0);
  });
});
