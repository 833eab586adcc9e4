// Signed requests end to end: AdcpClient signing against the reference seller with requiredFor set,
// over MCP and both A2A wires; tampered, replayed and expired requests refused with their exact
// codes; the official MCP SDK and @a2a-js/sdk clients (unsigned) still reach unsigned-allowed tools.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientFactory as ClientFactoryV1 } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactoryV03 } from 'a2a-sdk-v03/client';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { signRequest } from '../../src/signing/sign-request.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { ACTIVATED_CALL } from '../server/profile-activation.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const keyid = 'buyer-test-2026';
const publicJwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: keyid,
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const signing = { keyid, privateKey, alg: 'ed25519' as const };
const buy = mediaBuyRequest([packageRequest('display_news', 10)]);

describe('signed requests against the reference seller (requiredFor: create_media_buy)', () => {
  let seller: ReferenceSeller;
  const clients: AdcpClient[] = [];
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
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });
  const open = (protocol: 'mcp' | 'a2a', a2aWire?: '1.0' | '0.3', withSigning = true) => {
    const client = new AdcpClient({
      url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
      protocol,
      ...(a2aWire === undefined ? {} : { a2aWire }),
      ...(withSigning ? { signing } : {}),
      retry: false,
      timeoutMs: 60_000, // generous: the first call loads the SDKs, slow on a loaded machine
    });
    clients.push(client);
    return client;
  };

  for (const [protocol, wire] of [
    ['mcp', undefined],
    ['a2a', '1.0'],
    ['a2a', '0.3'],
  ] as const) {
    const label = wire === undefined ? protocol : `${protocol} ${wire}`;
    it(`a signing AdcpClient creates a media buy (${label})`, async () => {
      const result = await open(protocol, wire).call('create_media_buy', buy);
      assert.equal(result.status, 'submitted', JSON.stringify(result));
    });
    it(`an unsigned AdcpClient is refused with HTTP 401 on the required operation (${label})`, async () => {
      const error = await open(protocol, wire, false)
        .call('create_media_buy', buy)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof AdcpWireError, String(error));
      assert.equal(error.code, 'http_status');
      assert.equal(error.status, 401);
      assert.equal(error.signatureError, 'request_signature_required');
      assert.match(error.message, /request signature refused: request_signature_required/);
    });
  }

  it('an unsigned AdcpClient on the 2025 MCP era (SDK session) is refused with request_signature_required', async () => {
    const client = new AdcpClient({
      url: seller.mcpUrl,
      protocol: 'mcp',
      mcpEra: 'legacy',
      retry: false,
      timeoutMs: 60_000,
    });
    clients.push(client);
    const error = await client.call('create_media_buy', buy).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof AdcpWireError, String(error));
    assert.equal(error.status, 401);
    assert.equal(error.signatureError, 'request_signature_required', error.message);
  });

  // A key the seller does not trust: refused on the first POST (before any operation), whatever it is.
  const stranger = generateKeyPairSync('ed25519').privateKey;
  for (const [protocol, wire, mcpEra] of [
    ['mcp', undefined, 'modern'],
    ['mcp', undefined, 'legacy'],
    ['a2a', '1.0', undefined],
    ['a2a', '0.3', undefined],
  ] as const) {
    const label = [protocol, wire, mcpEra].filter((x) => x !== undefined).join(' ');
    it(`names request_signature_key_unknown when the key is not the seller's (${label})`, async () => {
      const client = new AdcpClient({
        url: protocol === 'mcp' ? seller.mcpUrl : seller.url,
        protocol,
        ...(wire === undefined ? {} : { a2aWire: wire }),
        ...(mcpEra === undefined ? {} : { mcpEra }),
        signing: { keyid: 'stranger-2026', privateKey: stranger, alg: 'ed25519' },
        retry: false,
        timeoutMs: 60_000,
      });
      clients.push(client);
      const error = await client.call('get_products', { buying_mode: 'brief', brief: 'news' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof AdcpWireError, String(error));
      assert.equal(error.status, 401);
      assert.equal(error.signatureError, 'request_signature_key_unknown', error.message);
    });
  }

  it('get_adcp_capabilities advertises request_signing from the configuration', async () => {
    const result = await open('mcp').call('get_adcp_capabilities', {});
    assert.deepEqual(result.data?.request_signing, {
      supported: true,
      covers_content_digest: 'required',
      required_for: ['create_media_buy'],
      supported_for: ['create_media_buy'],
      operation_sources: ['mcp_tools_call', 'a2a_invocation_skill'],
    });
  });

  const rawCall = (args: unknown, id = 1) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_media_buy', arguments: args } });
  const post = async (headers: Record<string, string>, body: string) => {
    const response = await fetch(seller.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    await response.body?.cancel();
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };
  const signed = (body: string, now?: number) =>
    signRequest(
      {
        method: 'POST',
        url: seller.mcpUrl,
        headers: { 'content-type': 'application/json' },
        body,
        ...(now === undefined ? {} : { now }),
      },
      signing,
    );

  it('refuses an unsigned raw request with request_signature_required', async () => {
    assert.deepEqual(await post({}, rawCall(buy)), {
      status: 401,
      challenge: 'Signature error="request_signature_required"',
    });
  });
  it('refuses a tampered body with request_signature_digest_mismatch', async () => {
    const headers = signed(rawCall(buy));
    const tampered = rawCall(mediaBuyRequest([packageRequest('display_news', 10_000)]));
    assert.deepEqual(await post(headers, tampered), {
      status: 401,
      challenge: 'Signature error="request_signature_digest_mismatch"',
    });
  });
  it('accepts a signed request once and refuses its replay with request_signature_replayed', async () => {
    const body = rawCall({ ...buy, idempotency_key: randomUUID() });
    const headers = signed(body);
    const first = await post(headers, body);
    assert.notEqual(first.status, 401);
    assert.deepEqual(await post(headers, body), {
      status: 401,
      challenge: 'Signature error="request_signature_replayed"',
    });
  });
  it('refuses an expired signature with request_signature_window_invalid', async () => {
    const body = rawCall(buy);
    assert.deepEqual(await post(signed(body, Math.floor(Date.now() / 1000) - 1000), body), {
      status: 401,
      challenge: 'Signature error="request_signature_window_invalid"',
    });
  });
  it('refuses a signature by an unknown key with request_signature_key_unknown', async () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const body = rawCall(buy);
    const headers = signRequest({ method: 'POST', url: seller.mcpUrl, body }, { keyid: 'nobody', privateKey: other });
    assert.deepEqual(await post(headers, body), {
      status: 401,
      challenge: 'Signature error="request_signature_key_unknown"',
    });
  });
  it('refuses a signed body with duplicate keys with request_body_malformed (after the signature)', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{}}';
    assert.deepEqual(await post(signed(body), body), {
      status: 401,
      challenge: 'Signature error="request_body_malformed"',
    });
  });

  it('the official MCP SDK client (unsigned) still calls get_products', async () => {
    const client = new Client({ name: 'signing-interop', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(seller.mcpUrl)));
    try {
      const result = await client.callTool({ name: 'get_products', arguments: { buying_mode: 'brief', brief: 'ctv' } });
      assert.equal(result.isError, undefined);
      assert.ok(Array.isArray((result.structuredContent as { products?: unknown }).products));
    } finally {
      await client.close();
    }
  });
  it('the official @a2a-js/sdk clients (1.x and 0.3, unsigned) still call get_products', async () => {
    const v1 = await new ClientFactoryV1().createFromUrl(seller.a2aUrl);
    const reply = (await v1.sendMessage(
      {
        tenant: '',
        message: {
          messageId: randomUUID(),
          contextId: '',
          taskId: '',
          role: 1,
          parts: [
            {
              content: {
                $case: 'data',
                value: { skill: 'get_products', input: { buying_mode: 'brief', brief: 'ctv' } },
              },
              metadata: undefined,
              filename: '',
              mediaType: '',
            },
          ],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      } as never,
      ACTIVATED_CALL,
    )) as unknown as { status: { state: number } };
    assert.equal(reply.status.state, 3); // TASK_STATE_COMPLETED
    const v03 = await new ClientFactoryV03().createFromUrl(seller.a2aUrl);
    const old = (await v03.sendMessage({
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'get_products', input: { buying_mode: 'brief', brief: 'ctv' } } }],
      },
    })) as unknown as { status: { state: string } };
    assert.equal(old.status.state, 'completed');
  });
});
