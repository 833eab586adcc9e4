import type { Jwk } from './jwks.js';
import { MemoryReplayStore } from './replay-store.js';
import { RevocationList } from './revocation.js';
import { isJsonObject } from '../core/json-object.js';
import { resolveOperation, type OperationResolution } from '../core/resolve-operation.js';
import {
  verifyRequestSignature,
  type ContentDigestPolicy,
  type RequestSignatureResult,
  type RequestSigningProfileVersion,
} from './verify-request-signature.js';

/** One file of `request-signing/{positive,negative}/` or `profile-3.2/` (README "Vector format"). */
export interface RequestSigningVector {
  signing_profile_version?: string;
  reference_now: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  verifier_capability?: {
    covers_content_digest?: string;
    required_for?: string[];
    warn_for?: string[];
    protocol_methods_required_for?: string[];
    protocol_methods_warn_for?: string[];
    /** The A2A erratum vectors: where the verifier reads operations from (`mcp_tools_call`, `a2a_invocation_skill`). */
    operation_sources?: string[];
  };
  jwks_ref?: string[];
  jwks_override?: { keys: Jwk[] };
  expected_outcome: { success: boolean; error_code?: string; resolved_operation?: string };
  test_harness_state?: {
    replay_cache_entries?: Array<{ keyid: string; nonce: string; ttl_seconds?: number }>;
    replay_cache_per_keyid_cap_hit?: { keyid: string };
    revocation_list?: { revoked_kids?: string[] };
  };
}

/** The per-keyid cap the harness fills for vector 020 (the runner contract's grading cap). */
export const GRADING_PER_KEYID_CAP = 100;

/**
 * Runs one request-signing vector white-box through `verifyRequestSignature`: its JWKS (`jwks_ref`
 * from `keys`, or `jwks_override`), the clock at `reference_now`, its `verifier_capability` as the
 * policy, and its `test_harness_state` installed in a real replay cache and revocation list. The
 * operation is resolved from the body (`resolveOperation`, as the server does), except on the root
 * vectors' `/adcp/<op>` URLs, whose operation is the path segment (README, "Running vectors").
 * A vector's `resolved_operation`, when given, must be the one resolved.
 * `where.offThread` picks where the signature check runs (default: the thread pool).
 */
export async function runRequestSigningVector(
  vector: RequestSigningVector,
  keys: { keys: Jwk[] } | Jwk[],
  where: { offThread?: () => boolean } = {},
): Promise<{ pass: boolean; expected: string; actual: string; result: RequestSignatureResult }> {
  const all = Array.isArray(keys) ? keys : keys.keys;
  const jwks =
    vector.jwks_override?.keys ??
    all.filter((k) => typeof k.kid === 'string' && (vector.jwks_ref ?? []).includes(k.kid));
  const now = vector.reference_now;
  const state = vector.test_harness_state ?? {};
  const capHit = state.replay_cache_per_keyid_cap_hit?.keyid;
  const replay = new MemoryReplayStore(capHit === undefined ? {} : { perKeyidCap: GRADING_PER_KEYID_CAP });
  for (const entry of state.replay_cache_entries ?? []) {
    replay.record(entry.keyid, entry.nonce, now + (entry.ttl_seconds ?? 360), now);
  }
  for (let i = 0; capHit !== undefined && i < GRADING_PER_KEYID_CAP; i += 1) {
    replay.record(capHit, `harness-fill-${i}`, now + 360, now);
  }
  const revocation = new RevocationList({ revoked_kids: state.revocation_list?.revoked_kids ?? [] });
  const capability = vector.verifier_capability ?? {};
  const resolution = resolutionOf(vector.request);
  const profile: RequestSigningProfileVersion = vector.signing_profile_version === '3.2' ? '3.2' : '3.1';
  const result = await verifyRequestSignature(vector.request, {
    jwks,
    now,
    replay,
    revocation,
    profile,
    coverContentDigest: digestPolicy(capability.covers_content_digest),
    requiredFor: capability.required_for ?? [],
    warnFor: capability.warn_for ?? [],
    protocolMethodsRequiredFor: capability.protocol_methods_required_for ?? [],
    protocolMethodsWarnFor: capability.protocol_methods_warn_for ?? [],
    resolveOperation: () => resolution,
    ...(where.offThread === undefined ? {} : { offThread: where.offThread }),
  });
  const expected = vector.expected_outcome.success ? 'success' : (vector.expected_outcome.error_code ?? 'failure');
  let actual: string = result.ok ? 'success' : result.code;
  const wanted = vector.expected_outcome.resolved_operation;
  const resolved = resolution.ok && resolution.kind === 'operation' ? resolution.operation : undefined;
  if (wanted !== undefined && resolved !== wanted) actual += ` (resolved operation ${resolved ?? 'none'})`;
  return { pass: expected === actual, expected, actual, result };
}

/** The wire's `covers_content_digest` (`either` = optional) as the library's policy. */
export function digestPolicy(wire: string | undefined): ContentDigestPolicy {
  return wire === 'required' ? 'required' : wire === 'forbidden' ? 'forbidden' : 'optional';
}

/** The root vectors name the operation in the URL (`/adcp/<op>`); every other vector in its body. */
function resolutionOf(request: RequestSigningVector['request']): OperationResolution {
  const path = /^[a-z]+:\/\/[^/]*(\/[^?#]*)/i.exec(request.url)?.[1] ?? '';
  if (!path.startsWith('/adcp/')) return resolveOperation({ path: request.url, body: request.body });
  const segment = /\/adcp\/([a-z0-9_]+)\/?(?:[?#]|$)/.exec(request.url)?.[1];
  if (segment === undefined) return { ok: true, kind: 'none' };
  let body: unknown;
  try {
    body = JSON.parse(request.body);
  } catch {
    body = undefined;
  }
  const args = isJsonObject(body) ? body : {};
  return { ok: true, kind: 'operation', method: 'tools/call', operation: segment, source: 'mcp_tools_call', args };
}
