import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import type { ListeningAdcpServer } from '../../src/server/create-adcp-server.js';
import { recordingIo } from './fake-io.js';
import { DEAD_URL, fastSeller } from './seller.js';
import { startReferenceSeller } from '../../src/seller/index.js';

describe('adcp discover against the reference seller', () => {
  let seller: ListeningAdcpServer;
  before(async () => {
    seller = await fastSeller();
  });
  after(async () => seller.close());

  it('shows the MCP server card, the capabilities and each tool with its task support', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl], io), 0);
    const out = io.out();
    assert.match(out, /MCP server card +adcp-wire reference seller/);
    assert.match(out, /A2A agent card +adcp-wire reference seller .*\/\.well-known\/agent-card\.json/);
    assert.match(out, /supported_protocols +\["media_buy"\]/);
    assert.match(out, /^get_products +optional /m);
    assert.match(out, /^get_adcp_capabilities +forbidden /m);
    // The heading counts the rows of the table under it (the seller's tool list grows with the kit).
    const tools = /^Tools \((\d+)\)\n.*\n-+ .*\n((?:.+\n?)+)/m.exec(out);
    assert.ok(tools, out);
    assert.equal(tools[2]!.trimEnd().split('\n').length, Number(tools[1]));
    assert.ok(Number(tools[1]) >= 9, 'the nine tools of the seller before the kit');
  });

  it("shows the MCP era and the server's capabilities and extensions, on both eras", async () => {
    const modern = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl], modern), 0);
    assert.match(modern.out(), /^MCP$/m);
    assert.match(modern.out(), /^era +modern \(2026-07-28, stateless\)$/m);
    assert.match(modern.out(), /^versions +2026-07-28$/m);
    assert.match(modern.out(), /^capabilities +tools$/m);
    assert.match(modern.out(), /^extensions +io\.modelcontextprotocol\/tasks$/m);
    const legacy = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl, '--mcp-era', 'legacy'], legacy), 0);
    assert.match(legacy.out(), /^era +legacy \(2025-\d\d-\d\d, streamable-http\)$/m);
    assert.match(legacy.out(), /^capabilities +.*\btasks\b/m);
    assert.match(legacy.out(), /^extensions +\(none\)$/m);
    assert.match(legacy.out(), /^get_products +optional /m, 'the rest of the report is the same');
  });

  it('puts the MCP era and extensions in --json, on both eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const io = recordingIo();
      assert.equal(await main(['discover', seller.mcpUrl, '--json', '--mcp-era', era], io), 0);
      const view = JSON.parse(io.out()) as { mcp?: { era: string; extensions: string[]; capabilities: string[] } };
      assert.equal(view.mcp?.era, era);
      assert.deepEqual(view.mcp?.extensions, era === 'modern' ? ['io.modelcontextprotocol/tasks'] : []);
      assert.ok(view.mcp?.capabilities.includes('tools'));
    }
  });

  it('shows the A2A agent card and skills with --protocol a2a', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', seller.a2aUrl, '--protocol', 'a2a'], io), 0);
    assert.match(io.out(), /A2A agent card +adcp-wire reference seller/);
    assert.match(io.out(), /MCP server card +adcp-wire reference seller .*\/\.well-known\/mcp\.json/);
    assert.match(io.out(), /^get_products /m);
    assert.doesNotMatch(io.out(), /^MCP$/m, 'no MCP section for an A2A agent');
  });

  it('prints the same facts as JSON with --json', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl, '--json'], io), 0);
    const view = JSON.parse(io.out()) as { protocol: string; tools: { name: string; taskSupport?: string }[] };
    assert.equal(view.protocol, 'mcp');
    assert.equal(view.tools.find((t) => t.name === 'create_media_buy')?.taskSupport, 'optional');
  });

  it("keeps the card's AdCP block an object with --json, and summarises it for people", async () => {
    const json = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl, '--json'], json), 0);
    const view = JSON.parse(json.out()) as { cards: { kind: string; name?: string; meta?: Record<string, unknown> }[] };
    const block = view.cards.find((c) => c.kind === 'AdCP card block');
    assert.ok(block !== undefined, json.out());
    assert.equal(block.name, undefined);
    assert.equal(typeof block.meta, 'object');
    assert.ok(Object.keys(block.meta ?? {}).length > 0);
    const human = recordingIo();
    assert.equal(await main(['discover', seller.mcpUrl], human), 0);
    const [first] = Object.keys(block.meta ?? {});
    assert.match(human.out(), new RegExp(`AdCP card block +${first ?? ''}: `));
  });

  it('calls a JWKS URL a JWK Set, not an A2A agent card', async () => {
    const jwksUrl = `${seller.url}/.well-known/jwks.json`;
    const io = recordingIo();
    await main(['discover', jwksUrl, '--json'], io);
    const view = JSON.parse(io.out()) as { cards: { kind: string; url?: string; problem?: string }[] };
    const row = view.cards.find((card) => card.url === jwksUrl);
    assert.equal(row?.kind, 'JWK Set', io.out());
    assert.equal(row?.problem, 'a JWK Set (public keys), not an agent card');
    assert.ok(!view.cards.some((card) => card.kind === 'A2A agent card' && card.url === jwksUrl), io.out());
    // Asked for A2A, there is no agent there at all: exit 3, saying what the URL serves instead.
    const a2a = recordingIo();
    assert.equal(await main(['discover', jwksUrl, '--protocol', 'a2a'], a2a), 3);
    assert.match(a2a.err(), /a JWK Set \(public keys\), not an agent card/);
  });

  it('exits 3 when only cards answered (a wrong path), still printing the report and one JSON document', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', `${seller.url}/nope`], io), 3);
    assert.match(io.out(), /MCP server card/);
    assert.match(io.err(), /^adcp discover: nothing usable answered at .*\/nope: .*HTTP 404/m);
    const json = recordingIo();
    assert.equal(await main(['discover', `${seller.url}/nope`, '--json'], json), 3);
    const view = JSON.parse(json.out()) as { unusable?: { refused: boolean } };
    assert.equal(view.unusable?.refused, false);
  });

  it('exits 3 when every request got 401 (MCP), 1 when the agent refused get_adcp_capabilities (A2A)', async () => {
    const token = `alice_${'0'.repeat(16)}`;
    const guarded = await startReferenceSeller({
      port: 0,
      host: '127.0.0.1',
      auth: { tokens: new Map([[token, 'alice']]) },
    });
    try {
      const wrong = ['--auth', `wrong_${'1'.repeat(16)}`];
      const mcp = recordingIo();
      assert.equal(await main(['discover', guarded.mcpUrl, ...wrong], mcp), 3);
      assert.match(mcp.err(), /nothing usable answered .*the agent refused the token: invalid_token/);
      const a2a = recordingIo();
      assert.equal(await main(['discover', guarded.a2aUrl, '--protocol', 'a2a', ...wrong], a2a), 1);
      assert.match(a2a.err(), /get_adcp_capabilities answered failed \(AUTH_INVALID\)/);
      const right = recordingIo();
      assert.equal(await main(['discover', guarded.mcpUrl, '--auth', token], right), 0, right.err());
    } finally {
      await guarded.close();
    }
  });

  it('exits 3 when nothing listens at the URL', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover', DEAD_URL, '--timeout', '5'], io), 3);
    assert.match(io.err(), /^adcp discover: /);
  });

  it('exits 2 without a URL', async () => {
    const io = recordingIo();
    assert.equal(await main(['discover'], io), 2);
    assert.match(io.err(), /missing <url>/);
  });
});
