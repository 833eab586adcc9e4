import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { A2ATransport } from '../../src/a2a/index.js';
import { AdcpWireError } from '../../src/core/wire-error.js';
import { startServer, startV1Server, type TestServer } from './sdk-servers.js';
import { sellerScript, PRODUCTS } from './scripts.js';
import {
  startRawServer,
  sendJson,
  dualCard,
  PROFILE_CAPABILITIES,
  v03Task,
  v1Task,
  type RawServer,
} from './raw-server.js';

const MAX = 1024 * 1024;

describe('A2ATransport wire selection against a pure 1.0 SDK server', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('v1', sellerScript());
  });
  after(() => server.close());

  it('refuses a v0.3-pinned client with unsupported_version before sending anything', async () => {
    const before = server.calls.length;
    const t = new A2ATransport({ url: server.base, maxBytes: MAX, a2aWire: '0.3' });
    await assert.rejects(t.callTool('get_products', {}, { maxBytes: MAX }), (e: unknown) => {
      assert.ok(e instanceof AdcpWireError);
      assert.equal(e.code, 'unsupported_version');
      assert.match(e.message, /offers A2A 1\.0 only; this client is pinned to A2A 0\.3/);
      return true;
    });
    assert.equal(server.calls.length, before);
  });

  it('turns the server VERSION_NOT_SUPPORTED into unsupported_version for a pinned client without a card', async () => {
    const cardless = await startV1Server(sellerScript(), { noCard: true });
    try {
      const t = new A2ATransport({ url: `${cardless.base}/a2a`, maxBytes: MAX, a2aWire: '0.3' });
      await assert.rejects(t.callTool('get_products', {}, { maxBytes: MAX }), (e: unknown) => {
        assert.ok(e instanceof AdcpWireError);
        assert.equal(e.code, 'unsupported_version');
        assert.match(e.message, /does not accept A2A 0\.3 .*-32009.*pinned to A2A 0\.3/);
        return true;
      });
      assert.equal(cardless.calls.at(-1), 'message/send');
    } finally {
      await cardless.close();
    }
  });
});

describe('A2ATransport against a card with both wires (1.x SDK, legacyCompat)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer('v1-compat', sellerScript());
  });
  after(() => server.close());

  it('prefers 1.0 when not pinned', async () => {
    const t = new A2ATransport({ url: server.base, maxBytes: MAX });
    const result = await t.callTool('get_products', {}, { maxBytes: MAX });
    assert.equal(server.calls.at(-1), 'SendMessage');
    assert.equal(server.versions.at(-1), '1.0');
    assert.deepEqual(result.data, { ...PRODUCTS, context: {} });
  });

  it('speaks v0.3 to the same server when pinned, with the same result', async () => {
    const t = new A2ATransport({ url: server.base, maxBytes: MAX, a2aWire: '0.3' });
    const result = await t.callTool('get_products', {}, { maxBytes: MAX });
    assert.equal(server.calls.at(-1), 'message/send');
    assert.equal(server.versions.at(-1), undefined);
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.data, { ...PRODUCTS, context: {} });
  });
});

describe('A2ATransport fallback from 1.0 to v0.3', () => {
  let raw: RawServer;
  before(async () => {
    raw = await startRawServer((req, res, base) => {
      if (req.method === 'GET' && req.path === '/.well-known/agent-card.json') return sendJson(res, dualCard(base));
      if (req.path === '/v1') {
        return sendJson(res, {
          jsonrpc: '2.0',
          id: req.body?.id,
          error: { code: -32009, message: 'The requested A2A protocol version is not supported' },
        });
      }
      if (req.path === '/v03')
        return sendJson(res, { jsonrpc: '2.0', id: req.body?.id, result: v03Task({ status: 'completed', n: 1 }) });
      sendJson(res, {}, 404);
    });
  });
  after(() => raw.close());

  it('falls back to the card v0.3 interface once on -32009 and remembers it', async () => {
    const t = new A2ATransport({ url: raw.base, maxBytes: MAX });
    const first = await t.callTool('get_products', {}, { maxBytes: MAX });
    const second = await t.callTool('get_products', {}, { maxBytes: MAX });
    assert.deepEqual(first.data, { status: 'completed', n: 1 });
    assert.deepEqual(second.data, { status: 'completed', n: 1 });
    const posts = raw.requests.filter((r) => r.method === 'POST').map((r) => `${r.path} ${r.body?.method}`);
    assert.deepEqual(posts, ['/v1 SendMessage', '/v03 message/send', '/v03 message/send']);
    assert.equal((await t.currentEndpoint({ maxBytes: MAX })).wire, '0.3');
  });

  it('lets concurrent calls that raced with the fallback succeed on v0.3', async () => {
    const t = new A2ATransport({ url: raw.base, maxBytes: MAX });
    const results = await Promise.all([1, 2, 3].map(() => t.callTool('get_products', {}, { maxBytes: MAX })));
    assert.deepEqual(
      results.map((r) => r.status),
      ['completed', 'completed', 'completed'],
    );
    assert.equal((await t.currentEndpoint({ maxBytes: MAX })).wire, '0.3');
  });

  it('does not fall back when pinned to 1.0', async () => {
    const t = new A2ATransport({ url: raw.base, maxBytes: MAX, a2aWire: '1.0' });
    await assert.rejects(
      t.callTool('get_products', {}, { maxBytes: MAX }),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'unsupported_version',
    );
  });
});

describe('A2ATransport without an agent card', () => {
  let raw: RawServer;
  before(async () => {
    raw = await startRawServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, { error: 'no' }, 404);
      if (req.body?.method === 'SendMessage')
        return sendJson(res, { jsonrpc: '2.0', id: req.body.id, error: { code: -32601, message: 'Method not found' } });
      if (req.body?.method === 'message/send')
        return sendJson(res, { jsonrpc: '2.0', id: req.body.id, result: v03Task({ ok: true }) });
      sendJson(res, { jsonrpc: '2.0', id: req.body?.id, error: { code: -32601, message: 'Method not found' } });
    });
  });
  after(() => raw.close());

  it('uses the URL as the endpoint and falls back to v0.3 on method-not-found', async () => {
    const t = new A2ATransport({ url: `${raw.base}/rpc`, maxBytes: MAX });
    const result = await t.callTool('get_products', {}, { maxBytes: MAX });
    assert.deepEqual(result.data, { ok: true });
    const gets = raw.requests.filter((r) => r.method === 'GET').map((r) => r.path);
    assert.deepEqual(gets, [
      '/rpc/.well-known/agent-card.json',
      '/.well-known/agent-card.json',
      '/rpc/.well-known/agent.json',
      '/.well-known/agent.json',
    ]);
  });

  it('reads a missing card as undefined, not as a problem', async () => {
    const t = new A2ATransport({ url: raw.base, maxBytes: MAX });
    assert.deepEqual(await t.readCard({ maxBytes: MAX }), {});
  });
});

describe('A2ATransport card discovery', () => {
  let raw: RawServer;
  before(async () => {
    raw = await startRawServer((req, res, base) => {
      if (req.path === '/moved/.well-known/agent-card.json') {
        res.writeHead(301, { location: '/legacy/.well-known/agent.json' });
        res.end();
        return;
      }
      if (req.path === '/offsite/.well-known/agent-card.json') {
        res.writeHead(302, { location: 'https://elsewhere.example/card.json' });
        res.end();
        return;
      }
      if (req.path === '/loop/.well-known/agent-card.json') {
        res.writeHead(307, { location: '/loop/.well-known/agent-card.json' });
        res.end();
        return;
      }
      if (req.path === '/legacy/.well-known/agent.json') {
        return sendJson(res, {
          name: 'legacy',
          url: `${base}/legacy`,
          protocolVersion: '0.3.0',
          skills: [{ id: 'get_signals', description: 'Signals' }],
        });
      }
      if (req.path === '/big/.well-known/agent-card.json')
        return sendJson(res, { name: 'x'.repeat(300 * 1024), url: `${base}/big` });
      if (req.path === '/bad/.well-known/agent-card.json') return sendJson(res, '{"name":"a","name":"b","url":"x"}');
      if (req.path === '/nointerface/.well-known/agent-card.json') return sendJson(res, { name: 'none' });
      if (req.path === '/legacy' && req.body?.method === 'message/send')
        return sendJson(res, { jsonrpc: '2.0', id: req.body.id, result: v03Task({ legacy: true }) });
      if (req.path === '/v1only/.well-known/agent-card.json') {
        return sendJson(res, {
          name: 'v1',
          supportedInterfaces: [
            { url: 'https://user:pw@seller.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            { url: `${base}/v1only/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          ],
          capabilities: PROFILE_CAPABILITIES,
          skills: [{ id: 'get_adcp_capabilities', name: 'c', description: 'c' }],
        });
      }
      if (req.path === '/v1only/rpc')
        return sendJson(res, { jsonrpc: '2.0', id: req.body?.id, result: { task: v1Task({ v1: true }) } });
      sendJson(res, {}, 404);
    });
  });
  after(() => raw.close());

  it('falls back to the legacy agent.json and uses its v0.3 url', async () => {
    const t = new A2ATransport({ url: `${raw.base}/legacy`, maxBytes: MAX });
    const result = await t.callTool('get_signals', {}, { maxBytes: MAX });
    assert.deepEqual(result.data, { legacy: true });
    assert.deepEqual(await t.listTools({ maxBytes: MAX }), [{ name: 'get_signals', description: 'Signals' }]);
  });

  it('follows a same-origin card redirect', async () => {
    const info = await new A2ATransport({ url: `${raw.base}/moved`, maxBytes: MAX }).readCard({ maxBytes: MAX });
    assert.equal(info.url, `${raw.base}/legacy/.well-known/agent.json`);
    assert.equal(info.card?.['name'], 'legacy');
  });

  it('does not follow a card redirect off the origin', async () => {
    const info = await new A2ATransport({ url: `${raw.base}/offsite`, maxBytes: MAX }).readCard({ maxBytes: MAX });
    assert.match(info.problem ?? '', /off the agent's origin; not followed/);
  });

  it('stops after three card redirects', async () => {
    const info = await new A2ATransport({ url: `${raw.base}/loop`, maxBytes: MAX }).readCard({ maxBytes: MAX });
    assert.match(info.problem ?? '', /more than 3 times/);
  });

  it('reports an oversized card as a problem', async () => {
    const info = await new A2ATransport({ url: `${raw.base}/big`, maxBytes: MAX }).readCard({ maxBytes: MAX });
    assert.match(info.problem ?? '', /over 262144 bytes/);
  });

  it('reports a card with duplicate keys as a problem and refuses to call', async () => {
    const t = new A2ATransport({ url: `${raw.base}/bad`, maxBytes: MAX });
    assert.match((await t.readCard({ maxBytes: MAX })).problem ?? '', /duplicate_key/);
    await assert.rejects(
      t.callTool('get_products', {}, { maxBytes: MAX }),
      (e: unknown) => e instanceof AdcpWireError && e.code === 'protocol',
    );
  });

  it('reports a card without any interface as a problem', async () => {
    const info = await new A2ATransport({ url: `${raw.base}/nointerface`, maxBytes: MAX }).readCard({ maxBytes: MAX });
    assert.match(info.problem ?? '', /names no interface/);
  });

  it('skips an interface URL with userinfo and unwraps the 1.0 { task } result', async () => {
    const t = new A2ATransport({ url: `${raw.base}/v1only`, maxBytes: MAX });
    assert.equal((await t.currentEndpoint({ maxBytes: MAX })).url, `${raw.base}/v1only/rpc`);
    const result = await t.callTool('get_products', {}, { maxBytes: MAX });
    assert.deepEqual(result.data, { v1: true });
  });
});
