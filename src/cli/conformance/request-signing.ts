import { isJsonObject } from '../../core/json-object.js';
import path from 'node:path';
import { show } from './check.js';
import type { FormatHandler, HandlerContext, VectorResult } from './types.js';
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

/** The A2A erratum vectors grade a verifier that claims `operation_sources`. */
function hasOperationSources(doc: unknown): boolean {
  return isRequestSigningVector(doc) && Array.isArray(doc.verifier_capability?.operation_sources);
}

async function runOne(doc: unknown, context: HandlerContext): Promise<VectorResult[]> {
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
}

/**
 * The A2A operation-resolution vectors of the AdCP 3.2.3 security erratum
 * (`request-signing/a2a/{positive,negative}/`, recognised by `verifier_capability.operation_sources`):
 * the request-signing format, whose operation is resolved from the body (`resolveOperation`) and
 * must equal `expected_outcome.resolved_operation` when the vector names one.
 */
export const a2aOperationResolutionHandler: FormatHandler = {
  format: 'A2A operation resolution (request signing erratum)',
  matches: hasOperationSources,
  run: runOne,
};

/**
 * RFC 9421 request-signing vectors (`request-signing/{positive,negative}/`, `profile-3.2/`): one
 * per file, recognised by `verifier_capability`, run through the same `verifyRequestSignature`
 * the server uses, with the JWK set found nearest to the file. Stateful vectors (016, 017, 020)
 * get their `test_harness_state` in a real replay cache and revocation list.
 */
export const requestSigningHandler: FormatHandler = {
  format: 'request signature (RFC 9421)',
  matches: isRequestSigningVector,
  run: runOne,
};
