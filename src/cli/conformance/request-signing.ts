import { isJsonObject } from '../../core/json-object.js';
import path from 'node:path';
import { show } from './check.js';
import type { FormatHandler } from './types.js';
import { runRequestSigningVector, type RequestSigningVector } from '../../signing/run-request-signing-vector.js';
import type { Jwk } from '../../signing/jwks.js';

function isRequestSigningVector(doc: unknown): doc is RequestSigningVector {
  if (!isJsonObject(doc)) return false;
  const request = doc['request'];
  return (
    isJsonObject(request) &&
    typeof request['method'] === 'string' &&
    typeof request['url'] === 'string' &&
    isJsonObject(request['headers']) &&
    typeof doc['reference_now'] === 'number' &&
    isJsonObject(doc['expected_outcome']) &&
    isJsonObject(doc['verifier_capability'])
  );
}

/**
 * RFC 9421 request-signing vectors (`request-signing/{positive,negative}/`, `profile-3.2/`): one
 * per file, recognised by `verifier_capability`, run through the same `verifyRequestSignature`
 * the server uses, with the JWK set found nearest to the file. Stateful vectors (016, 017, 020)
 * get their `test_harness_state` in a real replay cache and revocation list.
 */
export const requestSigningHandler: FormatHandler = {
  format: 'request signature (RFC 9421)',
  matches: isRequestSigningVector,
  async run(doc, context) {
    const id = path.basename(context.file, '.json');
    const keys = context.jwksNear(context.file) as Jwk[];
    try {
      const outcome = await runRequestSigningVector(doc as RequestSigningVector, keys);
      return [
        outcome.pass
          ? { id, ok: true }
          : { id, ok: false, reason: `expected ${show(outcome.expected)}, got ${show(outcome.actual)}` },
      ];
    } catch (error) {
      return [{ id, ok: false, reason: `threw ${show(error instanceof Error ? error.message : error)}` }];
    }
  },
};
