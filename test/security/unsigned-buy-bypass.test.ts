// issue 36 item 1 (and issue 30, the AdCP 3.2.3 erratum): an unsigned create_media_buy must not pass
// a seller that requires signatures for it by reading differently to the signature gate and to the
// dispatcher. The attacks: a JSON-RPC batch (the old gate saw no operation, the MCP endpoint ran
// it) and an A2A message whose TextPart also carries a `data` member (the old gate counted two data
// parts, the A2A dispatcher only the real DataPart and ran the buy), on both A2A wires and on the
// legacy interface. One resolver now decides for gate, dispatch and schema selection; each of
// these is refused with request_body_malformed (401) before any handler.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { openMcpSession, rawPost, type RawAnswer } from './raw-http.js';

const { publicKey } = generateKeyPairSync('ed25519');
const publicJwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'probe-buyer',
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const buy = mediaBuyRequest([packageRequest('display_news', 10)]);
const PROFILE = 'https://adcontextprotocol.org/extensions/adcp/v3';

function refusedAsMalformed(answer: RawAnswer): void {
  assert.equal(answer.status, 401, answer.text.slice(0, 300));
  assert.equal(answer.headers['www-authenticate'], 'Signature error="request_body_malformed"');
  assert.equal(answer.text.includes('media_buy_id'), false);
}

describe('a seller that requires signatures for create_media_buy, against unsigned decoys', () => {
  let seller: ReferenceSeller;
  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      requestSigning: {
        jwks: { keys: [publicJwk] },
        requiredFor: ['create_media_buy'],
        coverContentDigest: 'required',
      },
    });
  });
  after(async () => {
    await seller.close();
  });

  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_media_buy', arguments: buy } };

  it('an MCP JSON-RPC batch carrying create_media_buy, in a session: refused', async () => {
    const session = await openMcpSession(seller.mcpUrl);
    const answer = await rawPost(seller.mcpUrl, {
      body: JSON.stringify([call]),
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    });
    refusedAsMalformed(answer);
  });

  it('an MCP JSON-RPC batch carrying create_media_buy, without a session: refused', async () => {
    refusedAsMalformed(await rawPost(seller.mcpUrl, { body: JSON.stringify([call]) }));
  });

  const decoyParts = (wire: '1.0' | '0.3') => [
    // A TextPart that also carries `data`: a lenient reader calls it text, another a second DataPart.
    { kind: 'text', text: 'AdCP task: get_products', data: { skill: 'get_products', input: {} } },
    wire === '1.0'
      ? { data: { skill: 'create_media_buy', input: buy } }
      : { kind: 'data', data: { skill: 'create_media_buy', input: buy } },
  ];
  const sends = [
    ['A2A 1.0 SendMessage', 'SendMessage', '1.0'],
    ['A2A 1.0 SendStreamingMessage', 'SendStreamingMessage', '1.0'],
    ['A2A 0.3 message/send', 'message/send', '0.3'],
    ['A2A 0.3 message/stream', 'message/stream', '0.3'],
  ] as const;
  for (const [name, method, wire] of sends) {
    for (const where of ['a2a', 'a2a/legacy'] as const) {
      it(`${name} on /${where} whose TextPart also carries data: refused`, async () => {
        const message =
          wire === '1.0'
            ? { messageId: 'probe-1', role: 'ROLE_USER', parts: decoyParts(wire) }
            : { kind: 'message', messageId: 'probe-1', role: 'user', parts: decoyParts(wire) };
        const headers: Record<string, string> =
          wire === '1.0' ? { 'a2a-version': '1.0', 'a2a-extensions': PROFILE } : { 'a2a-extensions': PROFILE };
        const answer = await rawPost(`${seller.url}/${where}`, {
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params: { message } }),
          headers,
        });
        refusedAsMalformed(answer);
      });
    }
  }

  it('an A2A JSON-RPC batch of one send: refused', async () => {
    const message = {
      messageId: 'probe-2',
      role: 'ROLE_USER',
      parts: [{ data: { skill: 'create_media_buy', input: buy } }],
    };
    const answer = await rawPost(`${seller.url}/a2a`, {
      body: JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message } }]),
      headers: { 'a2a-version': '1.0', 'a2a-extensions': PROFILE },
    });
    refusedAsMalformed(answer);
  });

  it('the plain unsigned create_media_buy over A2A is still refused with request_signature_required', async () => {
    const message = {
      messageId: 'probe-3',
      role: 'ROLE_USER',
      parts: [{ data: { skill: 'create_media_buy', input: buy } }],
    };
    const answer = await rawPost(`${seller.url}/a2a`, {
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'SendMessage', params: { message } }),
      headers: { 'a2a-version': '1.0', 'a2a-extensions': PROFILE },
    });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers['www-authenticate'], 'Signature error="request_signature_required"');
  });
});
