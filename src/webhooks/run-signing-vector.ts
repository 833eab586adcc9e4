import type { Jwk } from '../signing/jwks.js';
import { MemoryReplayStore } from '../signing/replay-store.js';
import { RevocationList } from '../signing/revocation.js';
import { verifyWebhookSignature, type WebhookSignatureResult } from './verify-webhook-signature.js';

/** One file of `webhook-signing/{positive,negative}/` (README "Vector shape"); unknown members ignored. */
export interface WebhookSigningVector {
  reference_now: number;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  jwks_ref: string[];
  jwks_override?: Record<string, Jwk>;
  expected_outcome: { success: boolean; error_code?: string };
  test_harness_state?: {
    replay_cache_entries?: Array<{ keyid: string; nonce: string }>;
    revoked_kids?: string[];
    per_keyid_cap_filled_for?: string;
    revocation_list_stale_seconds?: number;
  };
}

/** Per-keyid cap the harness fills for vector 018 (small, so filling it costs nothing). */
const HARNESS_CAP = 4;

/**
 * Runs one webhook-signing vector white-box: the vector's JWKS subset (with `jwks_override`), the
 * clock stubbed to `reference_now`, and its `test_harness_state` installed in a fresh replay cache
 * and revocation list. Returns the verifier's result and whether it is the expected outcome.
 */
export async function runWebhookSigningVector(
  vector: WebhookSigningVector,
  keys: { keys: Jwk[] } | Jwk[],
): Promise<{ pass: boolean; expected: string; actual: string; result: WebhookSignatureResult }> {
  const all = Array.isArray(keys) ? keys : keys.keys;
  const jwks = all
    .filter((k) => typeof k.kid === 'string' && vector.jwks_ref.includes(k.kid))
    .map((k) => vector.jwks_override?.[k.kid as string] ?? k);
  const now = vector.reference_now;
  const state = vector.test_harness_state ?? {};
  const replay = new MemoryReplayStore(
    state.per_keyid_cap_filled_for !== undefined ? { perKeyidCap: HARNESS_CAP } : {},
  );
  for (const entry of state.replay_cache_entries ?? []) replay.record(entry.keyid, entry.nonce, now + 360, now);
  if (state.per_keyid_cap_filled_for !== undefined) {
    for (let i = 0; i < HARNESS_CAP; i += 1)
      replay.record(state.per_keyid_cap_filled_for, `harness-fill-${i}`, now + 360, now);
  }
  const revocation = new RevocationList({ revoked_kids: state.revoked_kids ?? [] });
  if (state.revocation_list_stale_seconds !== undefined) revocation.markStale();
  const result = await verifyWebhookSignature(vector.request, { jwks, now, replay, revocation });
  const expected = vector.expected_outcome.success ? 'success' : (vector.expected_outcome.error_code ?? 'failure');
  const actual = result.ok ? 'success' : result.reason;
  return { pass: expected === actual, expected, actual, result };
}
