import { isJsonObject } from '../../core/json-object.js';

import type { FormatHandler } from './types.js';

/** The keys of a JWK set document (`{ keys: [{ kty, kid, ... }] }`), or `undefined`. */
export function jwkSetKeys(doc: unknown): Record<string, unknown>[] | undefined {
  if (!isJsonObject(doc) || !Array.isArray(doc['keys']) || doc['keys'].length === 0) return undefined;
  const keys = doc['keys'] as unknown[];
  return keys.every((k) => isJsonObject(k) && typeof k['kty'] === 'string')
    ? (keys as Record<string, unknown>[])
    : undefined;
}

/** A JWK set: no vectors of its own, it supplies keys to the signature vectors beside it. */
export const jwkSetHandler: FormatHandler = {
  format: 'JWK set (keys for signature vectors)',
  support: true,
  matches: (doc) => jwkSetKeys(doc) !== undefined,
  async run() {
    return [];
  },
};
