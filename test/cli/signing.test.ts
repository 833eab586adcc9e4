import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { startReferenceSeller, type ReferenceSeller } from '../../src/seller/start-reference-seller.js';
import { mediaBuyRequest, packageRequest } from '../../src/seller/sample-requests.js';
import type { Jwk } from '../../src/signing/jwks.js';
import { recordingIo } from './fake-io.js';

describe('adcp signing generate, then adcp call --sign-key', () => {
  let dir = '';
  let seller: ReferenceSeller;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'adcp-signing-'));
  });
  after(async () => {
    await seller?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a private JWK (0600) and the public JWK set to publish, and never overwrites them', async () => {
    const io = recordingIo({ cwd: dir });
    assert.equal(await main(['signing', 'generate', '--kid', 'buyer-2026', '--json'], io), 0, io.err());
    const out = JSON.parse(io.out()) as { private_key: string; jwks: string };
    assert.equal((await stat(out.private_key)).mode & 0o777, 0o600);
    const jwks = JSON.parse(await readFile(out.jwks, 'utf8')) as { keys: Jwk[] };
    assert.deepEqual(
      { ...jwks.keys[0], x: 'x' },
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: 'x',
        kid: 'buyer-2026',
        alg: 'EdDSA',
        use: 'sig',
        adcp_use: 'request-signing',
        key_ops: ['verify'],
      },
    );
    assert.equal('d' in (jwks.keys[0] ?? {}), false);
    const again = recordingIo({ cwd: dir });
    assert.equal(await main(['signing', 'generate', '--kid', 'buyer-2026'], again), 1);
    assert.match(again.err(), /EEXIST/);
  });

  it('refuses a bad kid or alg with a usage error', async () => {
    assert.equal(await main(['signing', 'generate', '--kid', 'a b'], recordingIo({ cwd: dir })), 2);
    assert.equal(await main(['signing', 'generate', '--kid', 'k', '--alg', 'rsa'], recordingIo({ cwd: dir })), 2);
  });

  it('signs adcp call with --sign-key: accepted where create_media_buy requires a signature', async () => {
    const jwks = JSON.parse(await readFile(join(dir, 'buyer-2026.jwks.json'), 'utf8')) as { keys: Jwk[] };
    seller = await startReferenceSeller({ requestSigning: { jwks, requiredFor: ['create_media_buy'] } });
    const args = JSON.stringify(mediaBuyRequest([packageRequest('display_news', 10)]));
    const signed = recordingIo({ cwd: dir });
    const argv = [
      'call',
      seller.mcpUrl,
      'create_media_buy',
      args,
      '--json',
      '--sign-key',
      'buyer-2026.private.jwk.json',
    ];
    assert.equal(await main(argv, signed), 0, signed.err());
    assert.equal((JSON.parse(signed.out()) as { status: string }).status, 'submitted');
    const unsigned = recordingIo({ cwd: dir });
    assert.equal(await main(['call', seller.mcpUrl, 'create_media_buy', args, '--json'], unsigned), 3);
    assert.match(unsigned.err(), /HTTP 401 \(request signature refused: request_signature_required\)/);
    assert.match(unsigned.err(), /requires a signed request here: pass --sign-key FILE/);
    const a2a = recordingIo({ cwd: dir });
    assert.equal(await main(['call', seller.url, 'create_media_buy', args, '--protocol', 'a2a'], a2a), 3);
    assert.match(a2a.err(), /HTTP 401 \(request signature refused: request_signature_required\)/);
  });

  it('refuses a --sign-key file that is not a private JWK, without echoing it', async () => {
    const io = recordingIo({ cwd: dir });
    assert.equal(
      await main(['call', 'http://127.0.0.1:1/mcp', 'get_products', '{}', '--sign-key', 'buyer-2026.jwks.json'], io),
      2,
    );
    assert.match(io.err(), /private JWK/);
  });
});
