// issue 30 (the AdCP 3.2.3 erratum, "Operation resolution over A2A"): the library verifier is safe
// on its own. `verifyRequestSignature`, as a seller with its own A2A stack calls it, resolves the
// operation from the very bytes it verifies and refuses every unresolvable body with
// request_body_malformed: unsigned, with a lone Signature header, or validly signed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import {
  verifyRequestSignature,
  type VerifyRequestSignatureOptions,
} from '../../src/signing/verify-request-signature.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { MemoryReplayStore } from '../../src/signing/replay-store.js';
import type { Jwk } from '../../src/signing/jwks.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'buyer-1',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const url = 'https://seller.example/a2a';
const policy = (): VerifyRequestSignatureOptions => ({
  jwks: [jwk],
  replay: new MemoryReplayStore(),
  profile: '3.2',
  coverContentDigest: 'required',
  requiredFor: ['create_media_buy'],
});

const buy = { skill: 'create_media_buy', input: { plan_id: 'p1' } };
const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: 'm1',
  role: 'ROLE_USER',
  parts,
  ...extra,
});
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const send = (parts: unknown[], method = 'SendMessage') => rpc(method, { message: message(parts) });

/** Bodies that do not resolve to exactly one operation, each of which carries create_media_buy somewhere. */
const UNRESOLVABLE: Array<[string, string, string?]> = [
  ['a JSON-RPC batch of one A2A send', `[${send([{ data: buy }])}]`],
  ['a JSON-RPC batch of one tools/call', `[${rpc('tools/call', { name: 'create_media_buy', arguments: {} })}]`],
  [
    'a duplicate skill key',
    '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{"data":{"skill":"get_products","skill":"create_media_buy","input":{}}}]}}}',
  ],
  [
    'a \\u-escaped duplicate skill key',
    '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","parts":[{"data":{"skill":"get_products","sk\\u0069ll":"create_media_buy","input":{}}}]}}}',
  ],
  ['a case-variant Skill', send([{ data: { Skill: 'create_media_buy', input: {} } }])],
  [
    'a case-variant Parts',
    rpc('SendMessage', {
      message: { messageId: 'm', parts: [{ data: { skill: 'get_products', input: {} } }], Parts: [{ data: buy }] },
    }),
  ],
  ['a TextPart that also carries data (1.0)', send([{ text: 'x', data: buy }])],
  [
    'a TextPart that also carries data (0.3)',
    send(
      [
        { kind: 'text', text: 'x', data: buy },
        { kind: 'data', data: buy },
      ],
      'message/send',
    ),
  ],
  ['a text-only message', send([{ text: 'create a media buy' }])],
  ['two DataParts', send([{ data: { skill: 'get_products', input: {} } }, { data: buy }])],
  ['a FilePart (url)', send([{ data: buy }, { url: 'https://cdn.example/c.mp4' }])],
  ['a FilePart (raw)', send([{ data: buy }, { raw: 'AAAA' }])],
  [
    'a 0.3 FilePart',
    send(
      [
        { kind: 'data', data: buy },
        { kind: 'file', file: { uri: 'https://x' } },
      ],
      'message/stream',
    ),
  ],
  ['an empty skill', send([{ data: { skill: '', input: {} } }])],
  ['a non-string skill', send([{ data: { skill: ['create_media_buy'], input: {} } }])],
  ['data that is an array', send([{ data: ['create_media_buy', {}] }])],
  ['a missing method', JSON.stringify({ jsonrpc: '2.0', id: 1, params: { message: message([{ data: buy }]) } })],
  [
    'a duplicate method',
    `{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"SendMessage","params":${JSON.stringify({ message: message([{ data: buy }]) })}}`,
  ],
  [
    'HTTP+JSON message:send with two DataParts',
    JSON.stringify({ message: message([{ data: buy }, { data: buy }]) }),
    'https://seller.example/a2a/v1/message:send',
  ],
  [
    'HTTP+JSON message:stream, text only',
    JSON.stringify({ message: message([{ text: 'buy' }]) }),
    'https://seller.example/a2a/v1/message:stream',
  ],
];

const headersFor = (body: string, target: string): Record<string, string> => ({
  'content-type': 'application/json',
  ...signRequest(
    { method: 'POST', url: target, body, headers: { 'content-type': 'application/json' } },
    {
      keyid: 'buyer-1',
      privateKey,
      profile: '3.2',
      coverContentDigest: true,
    },
  ),
});

describe('verifyRequestSignature: an unresolvable body is request_body_malformed, whatever the headers', () => {
  for (const [name, body, target = url] of UNRESOLVABLE) {
    it(`${name}: unsigned`, async () => {
      const result = await verifyRequestSignature(
        { method: 'POST', url: target, headers: { 'content-type': 'application/json' }, body },
        policy(),
      );
      assert.deepEqual(result.ok ? result : result.code, 'request_body_malformed');
    });
    it(`${name}: with a lone malformed Signature header (resolution comes first)`, async () => {
      const headers = { 'content-type': 'application/json', signature: 'sig1=:AAAA:' };
      const result = await verifyRequestSignature({ method: 'POST', url: target, headers, body }, policy());
      assert.deepEqual(result.ok ? result : result.code, 'request_body_malformed');
    });
    it(`${name}: validly signed`, async () => {
      const result = await verifyRequestSignature(
        { method: 'POST', url: target, headers: headersFor(body, target), body },
        policy(),
      );
      assert.deepEqual(result.ok ? result : result.code, 'request_body_malformed');
    });
  }
  it('even with other credentials and on no list (resolution precedes every list)', async () => {
    const result = await verifyRequestSignature(
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: send([{ text: 'hi' }]) },
      { jwks: [jwk], otherCredential: true },
    );
    assert.deepEqual(result.ok ? result : result.code, 'request_body_malformed');
  });
});

describe('verifyRequestSignature: the operation is read from the bytes verified, never guessed', () => {
  for (const method of ['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']) {
    it(`an unsigned ${method} carrying create_media_buy is refused with request_signature_required`, async () => {
      const parts = method.includes('/') ? [{ kind: 'data', data: buy }] : [{ data: buy }];
      const result = await verifyRequestSignature(
        { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: send(parts, method) },
        policy(),
      );
      assert.deepEqual(result.ok ? result : result.code, 'request_signature_required');
    });
  }
  it('an unsigned HTTP+JSON message:send carrying create_media_buy is refused', async () => {
    const target = 'https://seller.example/a2a/v1/message:send';
    const result = await verifyRequestSignature(
      {
        method: 'POST',
        url: target,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: message([{ data: buy }]) }),
      },
      policy(),
    );
    assert.deepEqual(result.ok ? result : result.code, 'request_signature_required');
  });
  it('a signed SendMessage carrying create_media_buy is verified; get_products needs no signature', async () => {
    const body = send([{ data: buy }]);
    const signed = await verifyRequestSignature(
      { method: 'POST', url, headers: headersFor(body, url), body },
      policy(),
    );
    assert.equal(signed.ok && signed.signed, true);
    const products = send([{ text: 'AdCP task: create_media_buy' }, { data: { skill: 'get_products', input: {} } }]);
    const unsigned = await verifyRequestSignature(
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: products },
      policy(),
    );
    assert.deepEqual(unsigned, { ok: true, signed: false });
  });
  it('both namespaces apply: SendMessage in protocolMethodsRequiredFor asks a signature for get_products', async () => {
    const body = send([{ data: { skill: 'get_products', input: {} } }]);
    const result = await verifyRequestSignature(
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
      { ...policy(), protocolMethodsRequiredFor: ['SendMessage'] },
    );
    assert.deepEqual(result.ok ? result : result.code, 'request_signature_required');
  });
  it('a caller-passed resolver is used as given (another binding), and a throwing one fails closed', async () => {
    const body = '{"plan_id":"p1"}';
    const request = {
      method: 'POST',
      url: 'https://seller.example/adcp/create_media_buy',
      headers: { 'content-type': 'application/json' },
      body,
    };
    const byPath = await verifyRequestSignature(request, {
      ...policy(),
      resolveOperation: () => ({
        ok: true,
        kind: 'operation',
        method: 'create_media_buy',
        operation: 'create_media_buy',
        source: 'mcp_tools_call',
        args: {},
      }),
    });
    assert.deepEqual(byPath.ok ? byPath : byPath.code, 'request_signature_required');
    const broken = await verifyRequestSignature(request, {
      ...policy(),
      resolveOperation: () => {
        throw new Error('boom');
      },
    });
    assert.deepEqual(broken.ok ? broken : broken.code, 'request_body_malformed');
    // Without a resolver, that non-JSON-RPC body resolves to nothing: refused, not "not in required_for".
    const defaulted = await verifyRequestSignature(request, policy());
    assert.deepEqual(defaulted.ok ? defaulted : defaulted.code, 'request_body_malformed');
  });
});
