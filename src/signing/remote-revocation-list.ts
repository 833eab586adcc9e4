import { verify as cryptoVerify } from 'node:crypto';
import { decodeBase64UrlStrict } from './base64.js';
import { importPublicJwk, toJwksSource, type JwksInput } from './jwks.js';
import { remoteJwks } from './remote-jwks.js';
import { readCappedBody } from '../transport/capped-body.js';
import { RevocationList, type RevocationSource, type RevocationStatus } from './revocation.js';

export interface RemoteRevocationListOptions {
  /** Keys that may sign the list: the seller's JWKS (the list is signed with a key of the same set). */
  jwks: JwksInput;
  /** Expected `issuer` (the seller operator's origin); a list for another issuer is refused. */
  issuer?: string;
  fetch?: typeof fetch;
  /** Largest list body in bytes (default 256 KiB). */
  maxBytes?: number;
  timeoutMs?: number;
  /** Grace after `next_update` before the list is stale (default 4x the polling interval). */
  graceSeconds?: number;
  now?: () => number;
}

/**
 * The seller's revocation list read from `url` (security.md "Transport revocation": a JWS, flattened
 * JSON or compact, over `{ version, issuer, updated, next_update, revoked_kids }`), polled on the
 * cadence its `next_update` declares (clamped to 1-30 min). A list that fails to fetch or verify
 * keeps the previous one; once none was refreshed within `next_update` plus grace, every check
 * answers `stale`. Until the first successful fetch, checks answer `stale` too.
 */
export function remoteRevocationList(
  url: string,
  options: RemoteRevocationListOptions,
): RevocationSource & { refresh(): Promise<boolean> } {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  const jwks = toJwksSource(options.jwks, remoteJwks);
  const list = new RevocationList({}, options.graceSeconds === undefined ? {} : { graceSeconds: options.graceSeconds });
  list.markStale();
  let nextPollMs = 0;
  let inflight: Promise<boolean> | undefined;

  async function load(): Promise<boolean> {
    try {
      const response = await doFetch(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
      if (response.status !== 200) return false;
      const bytes = await readCappedBody(response, options.maxBytes ?? 262_144);
      if (bytes === 'too_large') return false;
      const text = bytes.toString('utf8');
      const payload = await verifyJws(text.trim(), jwks);
      if (payload === undefined) return false;
      if (options.issuer !== undefined && payload['issuer'] !== options.issuer) return false;
      const revoked = payload['revoked_kids'];
      const nextUpdate = payload['next_update'];
      if (!Array.isArray(revoked) || !revoked.every((k) => typeof k === 'string') || typeof nextUpdate !== 'string')
        return false;
      const nowSeconds = now() / 1000;
      list.update({ revoked_kids: revoked, next_update: nextUpdate }, nowSeconds);
      const interval = Math.min(1800, Math.max(60, Date.parse(nextUpdate) / 1000 - nowSeconds));
      nextPollMs = now() + interval * 1000;
      return true;
    } catch {
      return false;
    }
  }

  const refresh = (): Promise<boolean> => {
    inflight ??= load().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return {
    refresh,
    async check(keyid: string, nowSeconds: number): Promise<RevocationStatus> {
      if (now() >= nextPollMs) {
        nextPollMs = now() + 60_000; // at most one attempt a minute while failing
        await refresh();
      }
      return list.check(keyid, nowSeconds);
    },
  };
}

/** Verifies a JWS (flattened JSON, general JSON with one signature, or compact) and returns its JSON payload. */
async function verifyJws(
  text: string,
  jwks: ReturnType<typeof toJwksSource>,
): Promise<Record<string, unknown> | undefined> {
  let protectedB64: string;
  let payloadB64: string;
  let signatureB64: string;
  if (text.startsWith('{')) {
    const jws = JSON.parse(text) as {
      payload?: unknown;
      protected?: unknown;
      signature?: unknown;
      signatures?: Array<{ protected?: unknown; signature?: unknown }>;
    };
    const first = Array.isArray(jws.signatures) ? jws.signatures[0] : jws;
    if (typeof jws.payload !== 'string' || typeof first?.protected !== 'string' || typeof first.signature !== 'string')
      return undefined;
    [protectedB64, payloadB64, signatureB64] = [first.protected, jws.payload, first.signature];
  } else {
    const parts = text.split('.');
    if (parts.length !== 3) return undefined;
    [protectedB64, payloadB64, signatureB64] = parts as [string, string, string];
  }
  const header = JSON.parse(decodeBase64UrlStrict(protectedB64)?.toString('utf8') ?? 'null') as {
    kid?: unknown;
    alg?: unknown;
  } | null;
  const signature = decodeBase64UrlStrict(signatureB64);
  if (header === null || typeof header.kid !== 'string' || signature === undefined) return undefined;
  const jwk = await jwks.get(header.kid);
  if (jwk === undefined || !Array.isArray(jwk.key_ops) || !jwk.key_ops.includes('verify')) return undefined;
  const key = importPublicJwk(jwk);
  if (key === undefined) return undefined;
  const data = Buffer.from(`${protectedB64}.${payloadB64}`, 'ascii');
  const ok =
    header.alg === 'EdDSA' && jwk.kty === 'OKP'
      ? cryptoVerify(null, data, key, signature)
      : header.alg === 'ES256' && jwk.kty === 'EC'
        ? cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
        : false;
  if (!ok) return undefined;
  const payload = JSON.parse(decodeBase64UrlStrict(payloadB64)?.toString('utf8') ?? 'null') as unknown;
  return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)
    : undefined;
}
