// issue 30 item 4 (erratum: "Buyers sign any operation in required_for"): a signing AdcpClient has
// every operation a seller lists in required_for accepted, on every transport it speaks (MCP 2026
// and 2025 eras, A2A 1.0 and 0.3), and the same calls unsigned are refused with
// request_signature_required. AdcpClient signs every POST it sends, so the seller's lists never
// have to be guessed: the signature covers whatever operation the body resolves to.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { AdcpClient } from '../../src/client/index.js';
import { AdcpWireError } from '../../src/index.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import {
  creativesRequest,
  mediaBuyRequest,
  packageRequest,
  productsRequest,
} from '../../src/seller/sample-requests.js';
import type { Jwk } from '../../src/signing/jwks.js';
import type { JsonObject } from '../../src/core/types.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicJwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'every-op-buyer',
  alg: 'EdDSA',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const signing = { keyid: 'every-op-buyer', privateKey, alg: 'ed25519' as const, profile: '3.2' as const };

const CALLS: Array<[string, () => JsonObject]> = [
  ['get_products', () => productsRequest('news')],
  ['create_media_buy', () => mediaBuyRequest([packageRequest('display_news', 10)])],
  ['sync_creatives', () => creativesRequest([{ creative_id: `c-${Math.random()}` }])],
];

describe('a signing AdcpClient against a seller requiring several operations, on every transport', () => {
  let seller: ReferenceSeller;
  const clients: AdcpClient[] = [];
  before(async () => {
    seller = await startReferenceSeller({
      timings: { workingAfterMs: 10, completeAfterMs: 40 },
      requestSigning: {
        jwks: { keys: [publicJwk] },
        requiredFor: CALLS.map(([name]) => name),
        profile: '3.2',
      },
    });
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await seller.close();
  });

  const transports = [
    ['mcp 2026', { protocol: 'mcp', mcpEra: 'modern' }],
    ['mcp 2025', { protocol: 'mcp', mcpEra: 'legacy' }],
    ['a2a 1.0', { protocol: 'a2a', a2aWire: '1.0' }],
    ['a2a 0.3', { protocol: 'a2a', a2aWire: '0.3' }],
  ] as const;
  for (const [label, transport] of transports) {
    const open = (signed: boolean) => {
      const client = new AdcpClient({
        url: transport.protocol === 'mcp' ? seller.mcpUrl : seller.url,
        ...transport,
        ...(signed ? { signing } : {}),
        retry: false,
        timeoutMs: 60_000,
      });
      clients.push(client);
      return client;
    };
    it(`${label}: each required operation is accepted signed and refused unsigned`, async () => {
      const signedClient = open(true);
      const unsignedClient = open(false);
      for (const [name, args] of CALLS) {
        const result = await signedClient.call(name as 'get_products', args());
        assert.notEqual(result.status, 'failed', `${name}: ${JSON.stringify(result).slice(0, 300)}`);
        const error = await unsignedClient.call(name as 'get_products', args()).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(error instanceof AdcpWireError, `${name} unsigned: ${String(error)}`);
        assert.equal(error.signatureError, 'request_signature_required', `${name}: ${error.message}`);
      }
    });
  }
});
