// `adcp serve --sandbox` as a black-box compliance runner sees it (test kit signed-requests-runner.yaml):
// requests re-signed now with the public test keys from the official keys.json, sent to the running
// seller; the stateful vectors 016, 017 and 020 graded through the verifier's real state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { AdcpClient } from '../../src/client/index.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import { recordingIo } from './fake-io.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const keys = (
  JSON.parse(readFileSync(path.join(repoRoot, '../shared/request-signing-vectors/keys.json'), 'utf8')) as {
    keys: Array<Record<string, string>>;
  }
).keys;
const key = (kid: string, alg: 'ed25519' | 'es256' = 'ed25519') => {
  const jwk = keys.find((k) => k.kid === kid) ?? {};
  return { keyid: kid, alg, privateKey: { ...jwk, d: jwk._private_d_for_test_only ?? '' } };
};

async function startServe(args: string[]) {
  const controller = new AbortController();
  const io = recordingIo({ cwd: repoRoot });
  io.signal = controller.signal;
  const exit = main(['serve', '--port', '0', '--json', ...args], io);
  let endpoints: { mcp?: string; sandbox?: boolean; sandbox_token?: string; principals?: string[] } = {};
  for (let i = 0; i < 400 && endpoints.mcp === undefined; i++) {
    await new Promise((r) => setTimeout(r, 25));
    if (io.out().includes('\n')) endpoints = JSON.parse(io.out()) as { mcp?: string };
  }
  return { mcp: endpoints.mcp ?? '', endpoints, stop: async () => (controller.abort(), await exit), io };
}

describe('adcp serve --sandbox (signed-requests runner contract)', () => {
  let served: Awaited<ReturnType<typeof startServe>>;
  before(async () => {
    served = await startServe(['--sandbox']);
  });
  after(async () => assert.equal(await served.stop(), 0));

  const call = (name: string, args: object, id = 1) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const send = async (body: string, signing?: ReturnType<typeof key>, bearer?: string) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      ...(signing === undefined ? {} : signRequest({ method: 'POST', url: served.mcp, body }, signing)),
    };
    const response = await fetch(served.mcp, { method: 'POST', headers, body });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get('www-authenticate'), headers };
  };
  const refusedWith = (code: string) => ({ status: 401, challenge: `Signature error="${code}"` });
  const outcome = (r: { status: number; challenge: string | null }) => ({ status: r.status, challenge: r.challenge });
  const buy = () => call('create_media_buy', mediaBuyRequest([packageRequest('display_news', 10)]));

  it('says so, and advertises request_signing', async () => {
    assert.equal(served.endpoints.sandbox, true);
    const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
    const caps = await client.call('get_adcp_capabilities', {});
    await client.close();
    assert.deepEqual(caps.data?.request_signing, {
      supported: true,
      covers_content_digest: 'either',
      required_for: ['create_media_buy'],
      supported_for: ['create_media_buy'],
      operation_sources: ['mcp_tools_call', 'a2a_invocation_skill'],
      protocol_methods_supported_for: ['tasks/cancel'],
      protocol_methods_required_for: ['tasks/cancel'],
    });
  });
  it('accepts the runner keys (positive phase): Ed25519 and ES256, through AdcpClient', async () => {
    for (const signing of [key('test-ed25519-2026'), key('test-es256-2026', 'es256')]) {
      const client = new AdcpClient({ url: served.mcp, protocol: 'mcp', signing, retry: false });
      const result = await client.call('create_media_buy', mediaBuyRequest([packageRequest('display_news', 10)]));
      await client.close();
      // The sandbox confirms a buy without a webhook at once (--approval auto, decision 0203).
      assert.equal(result.status, 'completed');
    }
  });
  it('001: refuses an unsigned create_media_buy with request_signature_required', async () => {
    assert.deepEqual(outcome(await send(buy())), refusedWith('request_signature_required'));
  });
  it('mints a bearer token: an unsigned create_media_buy with it is not refused for a missing signature', async () => {
    // security.md, "Composition with fallback authenticators": a storyboard runner's unsigned calls
    // carry the token; only a call with no credential at all meets required_for (vector 001).
    const token = served.endpoints.sandbox_token ?? '';
    assert.match(token, /^sandbox-[0-9a-f]{32}$/);
    assert.deepEqual(served.endpoints.principals, ['sandbox-runner']);
    const client = new AdcpClient({ url: served.mcp, protocol: 'mcp', auth: token, retry: false });
    const result = await client.call('create_media_buy', mediaBuyRequest([packageRequest('display_news', 10)]));
    await client.close();
    assert.equal(result.status, 'completed');
    const wrong = await send(buy(), undefined, `sandbox-${'0'.repeat(32)}`);
    assert.equal(wrong.status, 401);
  });
  it('009: refuses a request signed with the governance-signing key with request_signature_key_purpose_invalid', async () => {
    assert.deepEqual(
      outcome(await send(buy(), key('test-gov-2026'))),
      refusedWith('request_signature_key_purpose_invalid'),
    );
  });
  it('028: refuses an unsigned tasks/cancel with request_signature_required', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { taskId: 't' } });
    assert.deepEqual(outcome(await send(body)), refusedWith('request_signature_required'));
  });
  it('016: accepts a request once and refuses the same request sent again (replay window)', async () => {
    const body = buy();
    const headers = signRequest({ method: 'POST', url: served.mcp, body }, key('test-ed25519-2026'));
    const post = () =>
      fetch(served.mcp, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      }).then(
        async (r) => (await r.body?.cancel(), { status: r.status, challenge: r.headers.get('www-authenticate') }),
      );
    assert.notEqual((await post()).status, 401);
    assert.deepEqual(await post(), refusedWith('request_signature_replayed'));
  });
  it('022: refuses a covered Content-Type with two values with request_signature_header_malformed, not 415', async () => {
    const body = buy();
    const signed = signRequest({ method: 'POST', url: served.mcp, body }, key('test-ed25519-2026'));
    assert.match(signed['signature-input'] ?? '', /"content-type"/);
    const post = (contentType: string, headers: Record<string, string>) =>
      fetch(served.mcp, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', ...headers, 'content-type': contentType },
        body,
      }).then(
        async (r) => (await r.body?.cancel(), { status: r.status, challenge: r.headers.get('www-authenticate') }),
      );
    assert.deepEqual(
      await post('application/json, text/plain', signed),
      refusedWith('request_signature_header_malformed'),
    );
    // Without a signature, or with one that is well-formed, a wrong media type stays 415.
    assert.equal((await post('application/json, text/plain', {})).status, 415);
    const fresh = signRequest({ method: 'POST', url: served.mcp, body }, key('test-ed25519-2026'));
    assert.equal((await post('text/plain', fresh)).status, 415);
  });
  it('017: refuses the pre-revoked test-revoked-2026 with request_signature_key_revoked', async () => {
    assert.deepEqual(
      outcome(await send(buy(), key('test-revoked-2026'))),
      refusedWith('request_signature_key_revoked'),
    );
  });
  it('020: refuses a keyid past the grading cap (100 entries) with request_signature_rate_abuse', async () => {
    const signing = key('test-es256-2026', 'es256');
    let accepted = 0;
    let last = { status: 0, challenge: null as string | null };
    for (let i = 0; i < 101; i++) {
      last = outcome(await send(call('get_adcp_capabilities', {}, i), signing));
      if (last.status === 401) break;
      accepted += 1;
    }
    assert.deepEqual(last, refusedWith('request_signature_rate_abuse'));
    assert.ok(accepted >= 90 && accepted < 100, `accepted ${accepted} before the cap`);
  });
});

describe('adcp serve without --sandbox', () => {
  it('trusts none of the test keys: no request_signing advertised, signatures not verified', async () => {
    const served = await startServe([]);
    try {
      const client = new AdcpClient({ url: served.mcp, protocol: 'mcp' });
      const caps = await client.call('get_adcp_capabilities', {});
      await client.close();
      assert.equal(caps.data?.request_signing, undefined);
    } finally {
      assert.equal(await served.stop(), 0);
    }
  });
  it('refuses --signing-vectors without --sandbox, and a folder without keys.json', async () => {
    const io = recordingIo({ cwd: repoRoot });
    assert.equal(await main(['serve', '--signing-vectors', '.'], io), 2);
    const io2 = recordingIo({ cwd: repoRoot });
    assert.equal(await main(['serve', '--sandbox', '--signing-vectors', 'src'], io2), 2);
    assert.match(io2.err(), /no keys\.json/);
  });
});
