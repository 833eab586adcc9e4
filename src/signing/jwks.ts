import { createPublicKey, type KeyObject } from 'node:crypto';

/** A public JWK as published in a seller's JWKS (only the members the verifier reads). */
export interface Jwk {
  kid?: string;
  kty?: string;
  crv?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  adcp_use?: string;
  x?: string;
  y?: string;
  [member: string]: unknown;
}

export interface JwkSet {
  keys: Jwk[];
}

/**
 * Where the verifier resolves a `keyid`: `get` returns the key or `undefined`; `refresh` (when
 * present) re-reads the set once on a miss (security.md step 7: "refetch once, 30 s cooldown").
 */
export interface JwksSource {
  get(keyid: string): Promise<Jwk | undefined> | Jwk | undefined;
  refresh?(): Promise<void>;
}

/** The seller's JWKS could not be read (network, size, shape): retry later; not an unknown key. */
export class JwksUnavailableError extends Error {
  override readonly name = 'JwksUnavailableError';
  constructor(readonly url: string) {
    super(`JWKS ${url} is unavailable`);
  }
}

/** A fixed key set (configured keys, or a test's subset of keys.json). */
export function staticJwks(set: JwkSet | Jwk[]): JwksSource {
  const keys = Array.isArray(set) ? set : set.keys;
  if (!Array.isArray(keys)) throw new TypeError('staticJwks: pass { keys: [...] } or an array of JWKs');
  const byKid = new Map<string, Jwk>();
  for (const key of keys) if (typeof key?.kid === 'string' && !byKid.has(key.kid)) byKid.set(key.kid, key);
  return { get: (keyid) => byKid.get(keyid) };
}

/** Anything a verifier accepts as the seller's keys. A string is the `jwks_uri` (see `remoteJwks`). */
export type JwksInput = JwksSource | JwkSet | Jwk[] | string;

const fromUrl = new Map<string, JwksSource>();
const fromObject = new WeakMap<object, JwksSource>();

/**
 * Accepts a `JwksSource`, a `{ keys }` object, an array of JWKs, or a JWKS URL (one cached
 * `remoteJwks` per URL). Conversions are memoised per object, so passing the same set on every
 * call costs nothing.
 */
export function toJwksSource(jwks: JwksInput, remote?: (url: string) => JwksSource): JwksSource {
  if (typeof jwks === 'string') {
    let source = fromUrl.get(jwks);
    if (source === undefined) {
      if (remote === undefined) throw new TypeError('toJwksSource: a JWKS URL needs remoteJwks');
      source = remote(jwks);
      fromUrl.set(jwks, source);
    }
    return source;
  }
  if (jwks === null || typeof jwks !== 'object')
    throw new TypeError('jwks: pass a JwksSource, { keys }, an array or a URL');
  const cached = fromObject.get(jwks);
  if (cached !== undefined) return cached;
  if (Array.isArray(jwks) || 'keys' in jwks) {
    const source = staticJwks(jwks);
    fromObject.set(jwks, source);
    return source;
  }
  if (typeof jwks.get !== 'function') throw new TypeError('jwks: pass a JwksSource, { keys } or an array');
  return jwks;
}

const keyCache = new WeakMap<Jwk, KeyObject | null>();

/** The Node key for a public Ed25519 or P-256 JWK, or `undefined` when it is not one. Cached per object. */
export function importPublicJwk(jwk: Jwk): KeyObject | undefined {
  const cached = keyCache.get(jwk);
  if (cached !== undefined) return cached ?? undefined;
  let key: KeyObject | null = null;
  const okp = jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string';
  const ec = jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string';
  if (okp || ec) {
    try {
      const pub: Record<string, string> = { kty: jwk.kty as string, crv: jwk.crv as string, x: jwk.x as string };
      if (ec) pub.y = jwk.y as string;
      key = createPublicKey({ key: pub, format: 'jwk' });
    } catch {
      key = null;
    }
  }
  keyCache.set(jwk, key);
  return key ?? undefined;
}
