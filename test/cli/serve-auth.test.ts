// `adcp serve --auth-token` / ADCP_SERVE_TOKENS, called by `adcp call --auth` / ADCP_AUTH_TOKEN.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { main } from '../../src/cli/main.js';
import { recordingIo, type RecordingIo } from './fake-io.js';
import { defaultTokenPrincipal } from '../../src/cli/serve-tokens.js';

const ALICE = `alice_${randomBytes(12).toString('hex')}`;
const BOB = `bob_${randomBytes(12).toString('hex')}`;

/** Runs `adcp serve ... --json` until the test is done; the endpoints it printed. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const controller = new AbortController();
  const io = recordingIo({ env });
  io.signal = controller.signal;
  const exit = main(['serve', '--port', '0', '--json', ...args], io);
  let endpoints: { mcp?: string; a2a?: string; principals?: string[] } = {};
  for (let i = 0; i < 400 && endpoints.mcp === undefined; i++) {
    await new Promise((r) => setTimeout(r, 25));
    if (io.out().includes('\n')) endpoints = JSON.parse(io.out()) as typeof endpoints;
  }
  return {
    io,
    endpoints,
    async stop() {
      controller.abort();
      assert.equal(await exit, 0);
    },
  };
}

async function call(
  url: string,
  tool: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<[number, RecordingIo]> {
  const io = recordingIo({ env });
  const code = await main(['call', url, tool, '{}', '--json', ...args], io);
  return [code, io];
}

describe('adcp serve --auth-token', () => {
  it('requires a listed token on protected tools and lets adcp call --auth through', async () => {
    const seller = await serve(['--auth-token', `${ALICE}=alice`, '--auth-token', BOB]);
    try {
      assert.deepEqual(seller.endpoints.principals, ['alice', defaultTokenPrincipal(BOB)]);
      assert.match(defaultTokenPrincipal(BOB), /^token:[0-9a-f]{8}$/);
      const mcp = seller.endpoints.mcp ?? '';
      const [refused, refusedIo] = await call(mcp, 'list_creatives', []);
      assert.notEqual(refused, 0);
      assert.match(refusedIo.out() + refusedIo.err(), /AUTH_MISSING/);
      const [wrong, wrongIo] = await call(mcp, 'list_creatives', ['--auth', `nope_${randomBytes(12).toString('hex')}`]);
      // The seller's WWW-Authenticate error, not an HTTP error of the internal server/discover probe.
      assert.equal(wrong, 1, wrongIo.err());
      assert.match(wrongIo.err(), /HTTP 401 \(the agent refused the token: invalid_token: The token is not valid\)/);
      assert.match(wrongIo.err(), /check the token: --auth TOKEN/);
      assert.doesNotMatch(wrongIo.err(), /server\/discover/);
      const [ok, okIo] = await call(mcp, 'list_creatives', ['--auth', ALICE]);
      assert.equal(ok, 0, okIo.err());
      assert.equal((JSON.parse(okIo.out()) as { status: string }).status, 'completed');
      // A2A reads the seller's adcp_error from the 401 as MCP does: AUTH_MISSING, AUTH_INVALID, exit 1.
      const a2a = seller.endpoints.a2a ?? '';
      for (const [args, code] of [
        [[], 'AUTH_MISSING'],
        [['--auth', `nope_${randomBytes(12).toString('hex')}`], 'AUTH_INVALID'],
      ] as const) {
        const [exit, io] = await call(a2a, 'list_creatives', ['--protocol', 'a2a', ...args]);
        assert.equal(exit, 1, io.err());
        const doc = JSON.parse(io.out()) as { status: string; error: { code: string } };
        assert.deepEqual([doc.status, doc.error.code], ['failed', code]);
      }
      const [viaEnv] = await call(seller.endpoints.a2a ?? '', 'list_creatives', ['--protocol', 'a2a'], {
        ADCP_AUTH_TOKEN: BOB,
      });
      assert.equal(viaEnv, 0);
      const [open] = await call(mcp, 'get_adcp_capabilities', []);
      assert.equal(open, 0);
      assert.doesNotMatch(seller.io.out() + seller.io.err(), new RegExp(`${ALICE}|${BOB}`));
    } finally {
      await seller.stop();
    }
  });

  it('reads ADCP_SERVE_TOKENS (comma-separated, T or T=principal)', async () => {
    const seller = await serve([], { ADCP_SERVE_TOKENS: `${ALICE}=alice, ${BOB}=bob` });
    try {
      assert.deepEqual(seller.endpoints.principals, ['alice', 'bob']);
      const [ok] = await call(seller.endpoints.mcp ?? '', 'list_creatives', ['--auth', BOB]);
      assert.equal(ok, 0);
    } finally {
      await seller.stop();
    }
  });

  it('prints the text banner with the principals (not only --json)', async () => {
    const controller = new AbortController();
    const io = recordingIo({ env: { ADCP_SERVE_TOKENS: `${BOB}=bob` } });
    io.signal = controller.signal;
    const exit = main(
      ['serve', '--port', '0', '--auth-token', `${ALICE}=alice`, '--test-controller', '--live-principal', 'alice'],
      io,
    );
    for (let i = 0; i < 400 && !io.out().includes('Ctrl-C to stop') && io.err() === ''; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    controller.abort();
    assert.equal(await exit, 0, io.err());
    assert.match(io.out(), /auth {2}bearer tokens for alice, bob; discovery stays open/);
    assert.match(io.out(), /live accounts \(controller refused\): alice/);
    assert.doesNotMatch(io.out(), new RegExp(`${ALICE}|${BOB}`));
  });

  it('refuses a short token with a usage error that does not echo it', async () => {
    const io = recordingIo();
    assert.equal(await main(['serve', '--port', '0', '--auth-token', 'short=alice'], io), 2);
    assert.match(io.err(), /--auth-token #1: a token must be at least 16 characters/);
    assert.doesNotMatch(io.err(), /short/);
  });
});
