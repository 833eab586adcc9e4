import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequestSigningVerifier } from './request-signing.js';
import { signRequest } from '../../signing/sign-request.js';
import type { Jwk } from '../../signing/jwks.js';
import { resolveParsedOperation, type OperationResolution } from '../../core/resolve-operation.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const jwk: Jwk = {
  ...(publicKey.export({ format: 'jwk' }) as Jwk),
  kid: 'buyer-1',
  use: 'sig',
  key_ops: ['verify'],
  adcp_use: 'request-signing',
};
const url = 'http://127.0.0.1:4000/mcp';
const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_products","arguments":{}}}';

function received(headers: Record<string, string>, sent = body): [IncomingMessage, Buffer, OperationResolution] {
  const req = { method: 'POST', url: '/mcp', headers: { host: '127.0.0.1:4000', ...headers }, socket: {} };
  return [req as unknown as IncomingMessage, Buffer.from(sent), resolveParsedOperation(JSON.parse(sent))];
}

describe('createRequestSigningVerifier: where the signature check runs', () => {
  for (const busy of [false, true]) {
    it(`asks busy() once per signed request and verifies alike (busy ${busy})`, async () => {
      let asked = 0;
      const verifier = createRequestSigningVerifier(
        { jwks: [jwk], coverContentDigest: 'required' },
        { busy: () => (asked++, busy) },
      );
      const sign = (): Record<string, string> => ({
        'content-type': 'application/json',
        ...signRequest({ method: 'POST', url, body }, { keyid: 'buyer-1', privateKey }),
      });
      assert.deepEqual(await verifier.admit(...received(sign()), false), { ok: true, signed: true, keyid: 'buyer-1' });
      assert.equal(asked, 1);
      const tampered = received(sign(), body.replace('get_products', 'get_signals'));
      assert.deepEqual(await verifier.admit(...tampered, false), {
        ok: false,
        code: 'request_signature_digest_mismatch',
      });
      const headers = sign();
      headers.signature = (headers.signature ?? '').replace(/^sig1=:./, (m) =>
        m.endsWith('A') ? 'sig1=:B' : 'sig1=:A',
      );
      assert.deepEqual(await verifier.admit(...received(headers), false), {
        ok: false,
        code: 'request_signature_invalid',
      });
      assert.deepEqual(await verifier.admit(...received({ 'content-type': 'application/json' }), false), {
        ok: true,
        signed: false,
      });
      assert.equal(asked, 3, 'once per signed request; the unsigned call never reaches the check');
    });
  }
});
