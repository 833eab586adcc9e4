import type { Jwk } from '../signing/jwks.js';
import { MemoryReplayStore } from '../signing/replay-store.js';
import { RevocationList } from '../signing/revocation.js';
import type { RequestSigningServerOptions } from '../server/auth/request-signing.js';

/**
 * The compliance runner's counterparty (compliance test kit `signed-requests-runner.yaml`): the
 * keyids it signs with, the keyid the agent pre-revokes, and the per-keyid cap it grades against.
 */
export const SIGNED_REQUESTS_RUNNER = {
  signingKeyids: ['test-ed25519-2026', 'test-es256-2026'],
  preRevokedKeyid: 'test-revoked-2026',
  /**
   * The governance-signing key of keys.json, kept in the JWKS so that a request signed with it
   * fails at checklist step 8 (`key_purpose_invalid`, vector 009), not at key lookup (`key_unknown`).
   */
  crossPurposeKeyid: 'test-gov-2026',
  gradingPerKeyidCap: 100,
} as const;

/**
 * The sandbox verifier `adcp serve --sandbox` runs, as the runner contract asks: the runner's public
 * keys, the pre-revoked one and the governance-signing one (vector 009's cross-purpose key) taken
 * from the official `keys.json` (read at run time, private halves dropped), `test-revoked-2026`
 * revoked, the grading cap of 100 entries per keyid (the replay TTL, expires + 60 s, is above the
 * contract's 10 s minimum), `create_media_buy` required (vector 001) and `tasks/cancel` among the
 * protocol methods (vector 028), on the 3.1 wire profile or (`profile` 3.2) the 3.2 one. Never use
 * outside a sandbox: these keys are public.
 */
export function sandboxRequestSigning(keysJson: unknown, profile: '3.1' | '3.2' = '3.1'): RequestSigningServerOptions {
  const all = (keysJson as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(all)) throw new TypeError('sandbox request signing: keys.json has no keys array');
  const wanted: readonly string[] = [
    ...SIGNED_REQUESTS_RUNNER.signingKeyids,
    SIGNED_REQUESTS_RUNNER.preRevokedKeyid,
    SIGNED_REQUESTS_RUNNER.crossPurposeKeyid,
  ];
  const keys: Jwk[] = [];
  for (const key of all as Jwk[]) {
    if (key === null || typeof key !== 'object' || typeof key.kid !== 'string' || !wanted.includes(key.kid)) continue;
    const publicOnly: Jwk = {};
    for (const [name, value] of Object.entries(key)) {
      if (name !== 'd' && !name.startsWith('_') && !name.startsWith('$')) publicOnly[name] = value;
    }
    keys.push(publicOnly);
  }
  const missing = wanted.filter((kid) => !keys.some((k) => k.kid === kid));
  if (missing.length > 0) throw new TypeError(`sandbox request signing: keys.json lacks ${missing.join(', ')}`);
  return {
    jwks: { keys },
    requiredFor: ['create_media_buy'],
    protocolMethodsRequiredFor: ['tasks/cancel'],
    // 3.1: the root vectors (content-digest either, Base64URL); 3.2: sf-binary, digest required.
    ...(profile === '3.2' ? { profile: '3.2', coverContentDigest: 'required' } : { coverContentDigest: 'optional' }),
    replay: new MemoryReplayStore({ perKeyidCap: SIGNED_REQUESTS_RUNNER.gradingPerKeyidCap }),
    revocation: new RevocationList({ revoked_kids: [SIGNED_REQUESTS_RUNNER.preRevokedKeyid] }),
  };
}
