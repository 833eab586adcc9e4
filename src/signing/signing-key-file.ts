import { generateKeyPairSync } from 'node:crypto';
import type { Jwk } from './jwks.js';
import type { RequestSigningOptions } from './sign-request.js';

/** A private request-signing JWK as `adcp signing generate` writes it (and `--sign-key` reads it). */
export type PrivateSigningJwk = Jwk & { kid: string; d: string };

/**
 * A fresh request-signing key pair: the private JWK (keep it secret) and the public JWK set to
 * publish at the agent's `jwks_uri`, with `use`, `key_ops`, `adcp_use` and `alg` as the AdCP
 * key-publication rules require (security.md, "Agent key publication").
 */
export function generateRequestSigningKey(
  kid: string,
  alg: 'ed25519' | 'es256' = 'ed25519',
): { privateJwk: PrivateSigningJwk; publicJwks: { keys: Jwk[] } } {
  const pair =
    alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwsAlg = alg === 'ed25519' ? 'EdDSA' : 'ES256';
  const meta = { kid, alg: jwsAlg, use: 'sig', adcp_use: 'request-signing' };
  const publicJwk: Jwk = { ...(pair.publicKey.export({ format: 'jwk' }) as Jwk), ...meta, key_ops: ['verify'] };
  const privateJwk = { ...(pair.privateKey.export({ format: 'jwk' }) as Jwk), ...meta, key_ops: ['sign'] };
  return { privateJwk: privateJwk as PrivateSigningJwk, publicJwks: { keys: [publicJwk] } };
}

/** Signing options from a private JWK file's parsed content; TypeError saying what is wrong. */
export function signingOptionsFromJwk(value: unknown): RequestSigningOptions {
  const jwk = value as Partial<PrivateSigningJwk> | null;
  if (jwk === null || typeof jwk !== 'object' || typeof jwk.d !== 'string') {
    throw new TypeError('the signing key must be a private JWK (with d), as `adcp signing generate` writes');
  }
  if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new TypeError('the signing key has no kid');
  const alg = jwk.crv === 'Ed25519' ? 'ed25519' : jwk.crv === 'P-256' ? 'es256' : undefined;
  if (alg === undefined) throw new TypeError(`the signing key must be Ed25519 or P-256, not ${String(jwk.crv)}`);
  return { keyid: jwk.kid, alg, privateKey: jwk as PrivateSigningJwk };
}
