import * as nodeCrypto from 'node:crypto';

type OneShotHash = {
  (algorithm: string, data: Uint8Array | string, outputEncoding: 'buffer'): Buffer;
  (algorithm: string, data: Uint8Array | string, outputEncoding: 'hex'): string;
};

// `crypto.hash` (Node 20.12+) hashes in one call, without a Hash object and its stream state:
// for a request-sized body that set-up costs more than the hashing. Older Node 20 falls back.
const oneShot = (nodeCrypto as { hash?: OneShotHash }).hash;

/** The `algorithm` (`sha256`, `sha512`) digest of `data` (a string is hashed as UTF-8). */
export function digestOf(algorithm: string, data: Uint8Array | string): Buffer {
  return oneShot !== undefined
    ? oneShot(algorithm, data, 'buffer')
    : nodeCrypto.createHash(algorithm).update(data).digest();
}

/** The same digest as lowercase hex, encoded natively (no Buffer made, no `toString` call). */
export function hexDigestOf(algorithm: string, data: Uint8Array | string): string {
  return oneShot !== undefined
    ? oneShot(algorithm, data, 'hex')
    : nodeCrypto.createHash(algorithm).update(data).digest('hex');
}
