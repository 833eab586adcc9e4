import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { Jwk } from './jwks.js';

/** A private signing key: a private JWK (with `d`) or a Node `KeyObject`. */
export type PrivateKeyInput = KeyObject | (Jwk & { d: string });

const privateKeys = new WeakMap<object, KeyObject>();

/** The Node key for a private Ed25519/P-256 JWK or KeyObject (cached per object); TypeError when unusable. */
export function importPrivateKey(key: PrivateKeyInput, caller: string): KeyObject {
  if (typeof (key as KeyObject).asymmetricKeyType === 'string') {
    if ((key as KeyObject).type !== 'private') throw new TypeError(`${caller}: privateKey must be a private key`);
    return key as KeyObject;
  }
  let cached = privateKeys.get(key);
  if (cached === undefined) {
    const jwk = key as Jwk & { d: string };
    if (jwk === null || typeof jwk !== 'object' || typeof jwk.d !== 'string') {
      throw new TypeError(`${caller}: privateKey must be a KeyObject or a private JWK (with d)`);
    }
    const fields: Record<string, string> = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x), d: jwk.d };
    if (jwk.y !== undefined) fields.y = String(jwk.y);
    try {
      cached = createPrivateKey({ key: fields, format: 'jwk' });
    } catch (error) {
      throw new TypeError(`${caller}: privateKey is not a usable Ed25519/P-256 private JWK`, { cause: error });
    }
    privateKeys.set(key, cached);
  }
  return cached;
}
